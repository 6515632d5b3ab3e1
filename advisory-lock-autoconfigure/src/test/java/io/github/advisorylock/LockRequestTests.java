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

package io.github.advisorylock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests of the rules {@link LockRequest} checks when it is created.
 */
class LockRequestTests {

	@Test
	void namespaceUpToTheLimitIsAccepted() {
		String namespace = "n".repeat(LockRequest.MAX_NAMESPACE_LENGTH);
		assertThat(LockRequest.of(namespace, 1).namespace()).isEqualTo(namespace);
	}

	@Test
	void longerNamespaceIsRefusedNamingItsLengthAndTheLimit() {
		assertThat(LockRequest.MAX_NAMESPACE_LENGTH).isEqualTo(100);
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("n".repeat(101), 1))
			.withMessageContaining("101 characters")
			.withMessageContaining("more than the limit of " + LockRequest.MAX_NAMESPACE_LENGTH);
	}

	@Test
	void namespaceWithANulCharacterIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("job\u0000export", 1))
			.withMessageContaining("Advisory lock namespace holds a NUL character (\\u0000) at index 3");
	}

	@Test
	void blankNamespaceIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of(" ", 1))
			.withMessageContaining("namespace must not be blank");
	}

}
