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

import java.sql.Connection;
import java.util.List;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.sql.LockSql.RefusalReason;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the failure messages the database cannot easily be made to produce: a
 * diagnosis that throws, a refusal whose reason cannot be read, and the skip's log line.
 * The others are asserted where a real server refuses or a real holder keeps the lock.
 */
class LockFailuresTests {

	private final LockKeys keys = LockKeys.resolve("n", List.of(1), AdvisoryLockKeys::of, 64);

	@Test
	void aDiagnosisThatThrowsDoesNotHideTheBusyLock() {
		IllegalStateException broken = new IllegalStateException("broken");
		LockBusyException ex = LockFailures.busyException("n", this.keys, null, null, new UnusedDiagnosis(),
				(diagnosis) -> {
					throw broken;
				}, null);
		assertThat(ex.isDiagnosed()).isFalse();
		assertThat(ex.getKeys()).isEqualTo(this.keys.keys());
		assertThat(ex).hasMessage("Advisory lock n:[1] (keys " + this.keys.keys() + ") is held by another "
				+ "transaction (TRY); holders not diagnosed: the diagnosis failed (" + broken + ")");
		assertThat(ex.getSuppressed()).containsExactly(broken);
	}

	@Test
	void withoutADiagnosisTheBusyLockIsNotDiagnosed() {
		LockBusyException ex = LockFailures.busyException("n", this.keys, null, null, null, (diagnosis) -> {
			throw new AssertionError("no diagnosis to ask");
		}, null);
		assertThat(ex.isDiagnosed()).isFalse();
		assertThat(ex.getSuppressed()).isEmpty();
	}

	@Test
	void aRefusalWhoseReasonCouldNotBeReadKeepsTheReadFailure() {
		IllegalStateException unread = new IllegalStateException("connection lost");
		LockTransactionException refusal = LockFailures.unexplainedRefusal(LockRequest.of("n", 1), unread);
		assertThat(refusal).hasMessage("Advisory lock 'n' was refused: the transaction runs above READ COMMITTED, or "
				+ "the server is in recovery (reading which one failed)");
		assertThat(refusal.getSuppressed()).containsExactly(unread);
		LockRequest named = LockRequest.of("n", 1).withCaller("nightly export", List.of());
		assertThat(LockFailures.unexplainedRefusal(named, unread))
			.hasMessageStartingWith("nightly export: Advisory " + "lock 'n' was refused");
	}

	@Test
	void aRefusalAtAnAcceptedIsolationNamesTheStandbyWhereverTheReasonWasRead() {
		LockRequest request = LockRequest.of("n", 1);
		// Read on the primary after a balancer sent the try to a standby: not in
		// recovery there, and the isolation accepted.
		assertThat(LockFailures.refusal(request, new RefusalReason("read committed", false)))
			.hasMessageContaining("was asked of a server in recovery");
		assertThat(LockFailures.refusal(request, new RefusalReason("repeatable read", true)))
			.hasMessageContaining("was asked of a server in recovery");
		assertThat(LockFailures.refusal(request, new RefusalReason("repeatable read", false)))
			.hasMessageContaining("needs isolation READ COMMITTED, but the transaction runs repeatable read");
	}

	@Test
	void theSkipIsLoggedWithItsLockAndScope() {
		assertThat(LockFailures.skippedMessage("n", LockScope.INVOCATION, List.of("1", "2")))
			.isEqualTo("Skipped the work under advisory lock n:[1, 2] (invocation scope): a key is held elsewhere");
	}

	/**
	 * A diagnosis whose own methods are never called: the failure path asks it through
	 * the function it is given.
	 */
	private static final class UnusedDiagnosis implements LockHolderDiagnosis {

		@Override
		public Diagnosis onConnection(Connection connection, List<Long> keys, LockMode mode) {
			throw new AssertionError("not called");
		}

		@Override
		public Diagnosis afterTimeout(DataSource dataSource, Connection caller, List<Long> keys, LockMode mode) {
			throw new AssertionError("not called");
		}

	}

}
