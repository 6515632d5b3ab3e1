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
import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.WaitMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of the wait-mode decision for a try that found a key held, without a database:
 * the waits themselves are asserted where a real holder keeps the lock.
 */
class LockAttemptTests {

	private final AtomicInteger waits = new AtomicInteger();

	@Test
	void blockWaitsAndIsAcquiredWhenTheWaitTakesTheKeys() {
		LockAttempt attempt = LockAttempt.afterBusy(WaitMode.BLOCK, 7L, () -> {
			this.waits.incrementAndGet();
			return null;
		});
		assertThat(this.waits).hasValue(1);
		assertThat(attempt.outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(attempt.busyKey()).isNull();
		assertThat(attempt.timedOut()).isNull();
	}

	@Test
	void blockTimesOutWithTheDriversReportWhenTheWaitRunsOut() {
		IllegalStateException report = new IllegalStateException("lock_timeout");
		LockAttempt attempt = LockAttempt.afterBusy(WaitMode.BLOCK, 7L, () -> report);
		assertThat(attempt.outcome()).isEqualTo(Outcome.TIMEOUT);
		assertThat(attempt.busyKey()).isEqualTo(7L);
		assertThat(attempt.timedOut()).isSameAs(report);
	}

	@Test
	void tryIsBusyAtOnceWithoutWaiting() {
		LockAttempt attempt = LockAttempt.afterBusy(WaitMode.TRY, 7L, this::unexpectedWait);
		assertThat(attempt.outcome()).isEqualTo(Outcome.BUSY);
		assertThat(attempt.busyKey()).isEqualTo(7L);
		assertThat(attempt.timedOut()).isNull();
	}

	@Test
	void skipIsSkippedWithoutWaiting() {
		LockAttempt attempt = LockAttempt.afterBusy(WaitMode.SKIP, 7L, this::unexpectedWait);
		assertThat(attempt.outcome()).isEqualTo(Outcome.SKIPPED);
		assertThat(attempt.busyKey()).isEqualTo(7L);
		assertThat(attempt.timedOut()).isNull();
	}

	@Test
	void aTryThatFoundNoKeyHeldIsAcquired() {
		assertThat(LockAttempt.ACQUIRED.outcome()).isEqualTo(Outcome.ACQUIRED);
		assertThat(LockAttempt.ACQUIRED.busyKey()).isNull();
	}

	@Test
	void whatEachOutcomeLeavesHeldInTheTransaction() {
		List<Long> keys = List.of(3L, 7L, 9L);
		assertThat(LockAttempt.ACQUIRED.taken(keys)).containsExactly(3L, 7L, 9L);
		assertThat(new LockAttempt(Outcome.BUSY, 7L, null).taken(keys)).as("the keys before the busy one")
			.containsExactly(3L);
		assertThat(new LockAttempt(Outcome.BUSY, 3L, null).taken(keys)).isEmpty();
		assertThat(new LockAttempt(Outcome.SKIPPED, 7L, null).taken(keys)).as("given back by the savepoint").isEmpty();
		assertThat(new LockAttempt(Outcome.TIMEOUT, 7L, new IllegalStateException()).taken(keys))
			.as("the timeout aborted the transaction")
			.isEmpty();
	}

	@Test
	void aTimeoutAlwaysFailsTheCallAndABusyTryOnlyWhenItThrows() {
		LockAttempt busy = new LockAttempt(Outcome.BUSY, 7L, null);
		LockAttempt timedOut = new LockAttempt(Outcome.TIMEOUT, 7L, new IllegalStateException());
		LockAttempt skipped = new LockAttempt(Outcome.SKIPPED, 7L, null);
		assertThat(busy.fails(true)).isTrue();
		assertThat(busy.fails(false)).isFalse();
		assertThat(timedOut.fails(false)).isTrue();
		assertThat(skipped.fails(true)).isFalse();
		assertThat(LockAttempt.ACQUIRED.fails(true)).isFalse();
	}

	@Test
	void theKeyFoundHeldIsAskedOnlyOfAnAttemptThatFoundOne() {
		assertThat(new LockAttempt(Outcome.BUSY, 7L, null).foundHeld()).isEqualTo(7L);
		assertThatIllegalStateException().isThrownBy(LockAttempt.ACQUIRED::foundHeld)
			.withMessage("The attempt took every key");
	}

	private Throwable unexpectedWait() {
		throw new AssertionError("only BLOCK waits");
	}

}
