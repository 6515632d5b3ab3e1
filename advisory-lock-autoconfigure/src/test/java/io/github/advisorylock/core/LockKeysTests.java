/*
 * Copyright 2026 the advisory-lock authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.github.advisorylock.core;

import java.util.List;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the keys of one call ({@link LockKeys}) by example; their properties over
 * generated values are in {@link LockKeysPropertyTests}.
 */
class LockKeysTests {

	private final String namespace = "test-" + UUID.randomUUID();

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	@Test
	void keysAreDeduplicatedBeforeTheyCountAgainstTheLimit() {
		LockKeys keys = LockKeys.resolve(this.namespace, List.of(List.of(3, 1), new Integer[] { 2, 1 }, "1", 3L),
				AdvisoryLockKeys::of, 3);
		assertThat(keys.keys()).containsExactlyInAnyOrder(key(1), key(2), key(3));
		assertThat(keys.values()).containsExactlyInAnyOrder("1", "2", "3");
	}

}
