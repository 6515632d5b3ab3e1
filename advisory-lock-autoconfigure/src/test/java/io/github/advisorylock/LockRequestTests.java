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
	void aCallerAndItsKeyNamesAreKeptByEveryCopy() {
		LockRequest request = LockRequest.of("export", "acme", "eu")
			.withCaller("nightly export", List.of("tenant", "region"))
			.withWaitMode(WaitMode.TRY)
			.withScope(LockScope.INVOCATION);
		assertThat(request.caller()).isEqualTo("nightly export");
		assertThat(request.keyNames()).containsExactly("tenant", "region");
		assertThat(LockRequest.of("export", 1).caller()).isNull();
		assertThat(LockRequest.of("export", 1).keyNames()).isEmpty();
	}

	@Test
	void keyNamesMustNameEveryKeyOrNone() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.of("export", "acme", "eu").withCaller("export job", List.of("tenant")))
			.withMessage("Key names name 1 keys, but the request has 2: give one name per key value, or none");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.of("export", "acme").withCaller(" ", List.of()))
			.withMessageContaining("Caller must not be blank");
	}

	@Test
	void blankNamespaceIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of(" ", 1))
			.withMessageContaining("namespace must not be blank");
	}

	@Test
	void aTimeoutWithAWaitModeThatNeverWaitsIsRefusedNamingTheFix() {
		for (WaitMode waitMode : new WaitMode[] { WaitMode.TRY, WaitMode.SKIP }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> LockRequest.of("job", 1).withWaitMode(waitMode).withTimeout(Duration.ofSeconds(2)))
				.withMessageContaining("timeout '2s' has no meaning for waitMode " + waitMode + ", which never waits")
				.withMessageContaining("remove it, or use waitMode BLOCK");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> LockRequest.of("job", 1).withTimeout(Duration.ofMillis(200)).withWaitMode(waitMode))
				.withMessageContaining("timeout '200ms' has no meaning for waitMode " + waitMode);
			// Without a timeout, the wait mode is fine.
			assertThat(LockRequest.of("job", 1)
				.withTimeout(Duration.ofSeconds(2))
				.withTimeout(null)
				.withWaitMode(waitMode)
				.waitMode()).isEqualTo(waitMode);
		}
	}

	@Test
	void aTimeoutOutOfPostgresqlsRangeIsRefusedQuotingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("job", 1).withTimeout(Duration.ZERO))
			.withMessageContaining("Advisory lock timeout '0ms' must be between 1ms and 2147483647ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.of("job", 1).withTimeout(Duration.ofSeconds(-1)))
			.withMessageContaining("timeout '-1s' must be between 1ms and");
		assertThat(LockRequest.of("job", 1).withTimeout(LockRequest.MAX_TIMEOUT).timeout())
			.isEqualTo(LockRequest.MAX_TIMEOUT);
	}

	@Test
	void aRequestIsAPlainLockUntilItIsGivenPermits() {
		assertThat(LockRequest.of("export", 1).permits()).isEqualTo(1);
		LockRequest limit = LockRequest.of("export", 1).withPermits(3);
		assertThat(limit.permits()).isEqualTo(3);
		// Every other copy keeps the limit.
		assertThat(limit.withWaitMode(WaitMode.TRY)
			.withScope(LockScope.TRANSACTION)
			.withDataSource("ds")
			.withCaller("export job", List.of("tenant"))
			.permits()).isEqualTo(3);
		assertThat(LockRequest.of("export", 1).withPermits(LockRequest.MAX_PERMITS).permits()).isEqualTo(64);
	}

	@Test
	void permitsOutOfRangeOrSharedAreRefusedNamingTheFix() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("export", 1).withPermits(0))
			.withMessageContaining("permits must be between 1 and 64 (LockRequest.MAX_PERMITS), was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("export", 1).withPermits(65))
			.withMessageContaining("was 65");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.of("export", 1).withPermits(2).withMode(LockMode.SHARED))
			.withMessageContaining("permits = 2 limits exclusive holders")
			.withMessageContaining("remove permits, or use mode EXCLUSIVE");
	}

}
