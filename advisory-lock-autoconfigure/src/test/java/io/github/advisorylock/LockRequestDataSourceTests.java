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

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for the {@code DataSource} a {@link LockRequest} names.
 */
class LockRequestDataSourceTests {

	@Test
	void namesNoneUnlessAsked() {
		assertThat(LockRequest.of("report", 1).dataSource()).isNull();
		assertThat(LockRequest.of("report", 1).withMode(LockMode.SHARED).withWaitMode(WaitMode.TRY).dataSource())
			.isNull();
	}

	@Test
	void everyCopyKeepsTheNameAndOnlyWithDataSourceChangesIt() {
		LockRequest request = LockRequest.of("report", 1).withDataSource("reporting");
		LockRequest copy = request.withMode(LockMode.SHARED)
			.withTimeout(Duration.ofMillis(200))
			.withScope(LockScope.INVOCATION);
		assertThat(copy).isEqualTo(new LockRequest("report", List.of(1), LockMode.SHARED, WaitMode.BLOCK,
				Duration.ofMillis(200), LockScope.INVOCATION, "reporting"));
		// A timeout has no meaning for SKIP: cleared first.
		assertThat(copy.withTimeout(null).withWaitMode(WaitMode.SKIP).dataSource()).isEqualTo("reporting");
		assertThat(copy.withDataSource(null).dataSource()).isNull();
		assertThat(request.dataSource()).isEqualTo("reporting");
	}

	@Test
	void refusesABlankName() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("report", 1).withDataSource(" "))
			.withMessageContaining("DataSource name must not be blank");
	}

}
