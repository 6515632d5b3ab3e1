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
package io.github.advisorylock.jdbc;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of what the library knows it took in each transaction, against real PostgreSQL:
 * {@code isHeld} and {@code assertHeld} answer for the current transaction only, follow
 * suspend and resume and a rollback to a savepoint; a call for a key that a suspended
 * transaction of the same thread holds fails at once, in every wait mode and scope,
 * instead of waiting for itself or skipping.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class TransactionLocksTests {

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(4);

	private final DataSource pool = this.fixture.dataSource();

	private final DataSourceTransactionManager transactionManager = this.fixture.transactionManager();

	private final TransactionTemplate outer = this.fixture.transaction();

	private final TransactionTemplate requiresNew = propagation(TransactionDefinition.PROPAGATION_REQUIRES_NEW);

	private final TransactionTemplate notSupported = propagation(TransactionDefinition.PROPAGATION_NOT_SUPPORTED);

	private final TransactionTemplate nested = propagation(TransactionDefinition.PROPAGATION_NESTED);

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final String namespace = "suspended-" + UUID.randomUUID();

	private TransactionTemplate propagation(int behavior) {
		TransactionTemplate template = new TransactionTemplate(this.transactionManager);
		template.setPropagationBehavior(behavior);
		return template;
	}

	@Test
	void aRequiresNewCallForAKeyItsSuspendedOuterTransactionHoldsFailsAtOnceInEveryWaitMode() {
		this.outer.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			for (WaitMode waitMode : WaitMode.values()) {
				LockRequest request = LockRequest.of(this.namespace, 1).withWaitMode(waitMode);
				// A wait for itself would last the hang bound; the refusal comes before
				// any SQL.
				LockRequest bounded = (waitMode == WaitMode.BLOCK) ? request.withTimeout(PgLocks.HANG_TIMEOUT)
						: request;
				assertThatExceptionOfType(LockTransactionException.class)
					.isThrownBy(() -> this.requiresNew
						.executeWithoutResult((inner) -> this.locks.execute(bounded, (handle) -> "ran")))
					.withMessageContaining("Advisory lock " + this.namespace + ":1 is held EXCLUSIVE by a transaction "
							+ "of this same thread that is suspended");
			}
			// Resumed, the outer transaction still holds it, re-entrantly.
			this.locks.lock(LockRequest.of(this.namespace, 1).withWaitMode(WaitMode.TRY));
		});
		// Once it ended, nothing of it remains: the same call in a new transaction takes
		// the key.
		this.outer.executeWithoutResult((status) -> this.requiresNew.executeWithoutResult(
				(inner) -> this.locks.lock(LockRequest.of(this.namespace, 1).withWaitMode(WaitMode.TRY))));
	}

	@Test
	void aRequiresNewCallOfALimitTakesAnotherPermitWhicheverSlotItsSuspendedOuterTransactionHolds() {
		LockRequest limit = LockRequest.of(this.namespace, "tenant").withPermits(3).withWaitMode(WaitMode.TRY);
		List<Long> slots = slots("tenant", 3);
		for (int outerSlot = 0; outerSlot <= 1; outerSlot++) {
			int taken = outerSlot;
			// Another session holds the slots before the one the outer transaction takes.
			try (LockHolder other = (taken > 0) ? LockHolder.exclusive(this.pool, slots.get(0)) : null) {
				this.outer.executeWithoutResult((status) -> {
					this.locks.lock(limit);
					assertThat(grantedOf(slots)).as("slots held with the outer transaction's, slot " + taken)
						.containsExactlyElementsOf(slots.subList(0, taken + 1));
					this.requiresNew.executeWithoutResult((inner) -> {
						this.locks.lock(limit);
						assertThat(grantedOf(slots)).as("slots held with the inner transaction's")
							.containsExactlyElementsOf(slots.subList(0, taken + 2));
					});
				});
			}
		}
	}

	@Test
	void aRequiresNewCallOfALimitIsRefusedAtOnceOnlyWhenSuspendedTransactionsHoldEveryPermit() {
		List<Long> slots = slots("tenant", 2);
		// A wait for itself would last the hang bound; the refusal comes before any SQL.
		LockRequest limit = LockRequest.of(this.namespace, "tenant")
			.withPermits(2)
			.withTimeout(PgLocks.HANG_TIMEOUT.multipliedBy(4));
		this.outer.executeWithoutResult((status) -> {
			this.locks.lock(limit);
			this.requiresNew.executeWithoutResult((inner) -> {
				this.locks.lock(limit);
				assertThatExceptionOfType(LockTransactionException.class)
					.isThrownBy(() -> this.requiresNew.executeWithoutResult((innermost) -> this.locks.lock(limit)))
					.withMessageContaining("Every one of the 2 permits of advisory lock " + this.namespace
							+ ":tenant is held by a transaction of this same thread that is suspended");
			});
		});
		// One permit held by another session, not suspended here: that one may be freed,
		// so the call is not refused, and finds the limit full.
		try (LockHolder other = LockHolder.exclusive(this.pool, slots.get(0))) {
			this.outer.executeWithoutResult((status) -> {
				this.locks.lock(limit);
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> this.requiresNew.executeWithoutResult((inner) -> this.locks
						.lock(LockRequest.of(this.namespace, "tenant").withPermits(2).withWaitMode(WaitMode.TRY))));
			});
		}
	}

	private List<Long> slots(String value, int permits) {
		long key = AdvisoryLockKeys.of(this.namespace, value);
		return IntStream.range(0, permits).mapToObj((slot) -> AdvisoryLockKeys.permitSlot(key, slot)).toList();
	}

	/** The given slots held by any session, in the order given. */
	private List<Long> grantedOf(List<Long> slots) {
		List<Long> granted = this.pgLocks.all().stream().filter(AdvisoryLock::granted).map(AdvisoryLock::key).toList();
		return slots.stream().filter(granted::contains).toList();
	}

	@Test
	void sharedAfterSharedIsNoConflict() {
		this.outer.executeWithoutResult((status) -> {
			this.locks.lock(LockRequest.of(this.namespace, 1).withMode(LockMode.SHARED));
			this.requiresNew.executeWithoutResult((inner) -> {
				this.locks.lock(LockRequest.of(this.namespace, 1).withMode(LockMode.SHARED).withWaitMode(WaitMode.TRY));
				assertThat(this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, 1))).hasSize(2);
			});
		});
	}

	@Test
	void anInvocationScopedCallAfterNotSupportedForAKeyTheSuspendedTransactionHoldsFailsAtOnce() {
		this.outer.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			this.notSupported.executeWithoutResult((none) -> assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> this.locks.execute(
						LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION).withWaitMode(WaitMode.SKIP),
						(handle) -> "ran"))
				.withMessageContaining("suspended"));
			// A key the suspended transaction does not hold is free for it.
			this.notSupported.executeWithoutResult(
					(none) -> assertThat(this.locks
						.execute(LockRequest.of(this.namespace, 2)
							.withScope(LockScope.INVOCATION)
							.withTimeout(Duration.ofSeconds(5)), (handle) -> "ran")
						.value()).isEqualTo("ran"));
		});
	}

	@Test
	void isHeldAnswersForTheKeysTheCurrentTransactionTook() {
		assertThat(this.locks.isHeld(this.namespace, 1)).as("outside any transaction").isFalse();
		this.outer.executeWithoutResult((status) -> {
			assertThat(this.locks.isHeld(this.namespace, 1)).as("before the lock").isFalse();
			this.locks.lock(this.namespace, 1, 2);
			assertThat(this.locks.isHeld(this.namespace, 1)).isTrue();
			assertThat(this.locks.isHeld(this.namespace, 2, 1)).isTrue();
			assertThat(this.locks.isHeld(this.namespace, 1, 3)).as("one key of two not held").isFalse();
			assertThat(this.locks.isHeld("other-" + this.namespace, 1)).as("another namespace").isFalse();
			// A transaction of its own holds nothing of the suspended one's; resumed, the
			// outer one holds it again.
			this.requiresNew
				.executeWithoutResult((inner) -> assertThat(this.locks.isHeld(this.namespace, 1)).isFalse());
			assertThat(this.locks.isHeld(this.namespace, 1)).isTrue();
		});
		this.outer.executeWithoutResult(
				(status) -> assertThat(this.locks.isHeld(this.namespace, 1)).as("a later transaction").isFalse());
	}

	@Test
	void isHeldSeesTheKeysOfAnEnclosingInvocationScopedCall() {
		LockRequest invocation = LockRequest.of(this.namespace, 7).withScope(LockScope.INVOCATION);
		assertThat(this.locks.execute(invocation, (handle) -> this.locks.isHeld(this.namespace, 7)).value()).isTrue();
		assertThat(this.locks.isHeld(this.namespace, 7)).as("after the call").isFalse();
	}

	@Test
	void assertHeldNamesTheLockAndTheLikelyCause() {
		this.outer.executeWithoutResult((status) -> {
			assertThatIllegalStateException().isThrownBy(() -> this.locks.assertHeld(this.namespace, 5))
				.withMessageContaining("Advisory lock " + this.namespace + ":[5] is not held")
				.withMessageContaining("did not go through its Spring proxy");
			this.locks.lock(this.namespace, 5);
			this.locks.assertHeld(this.namespace, 5);
		});
	}

	@Test
	void aRollbackToASavepointReleasesAndForgetsTheLocksTakenAfterIt() {
		this.outer.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			this.nested.executeWithoutResult((savepoint) -> {
				this.locks.lock(this.namespace, 2);
				savepoint.setRollbackOnly();
			});
			assertThat(this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, 2))).as("released by PostgreSQL").isEmpty();
			assertThat(this.locks.isHeld(this.namespace, 2)).as("forgotten").isFalse();
			assertThat(this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, 1))).hasSize(1);
			assertThat(this.locks.isHeld(this.namespace, 1)).as("taken before the savepoint").isTrue();
			// A nested call that completes keeps its lock until the outer transaction
			// ends.
			this.nested.executeWithoutResult((savepoint) -> this.locks.lock(this.namespace, 3));
			assertThat(this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, 3))).hasSize(1);
			assertThat(this.locks.isHeld(this.namespace, 3)).isTrue();
			// A later rollback to another savepoint leaves it alone.
			this.nested.executeWithoutResult((savepoint) -> savepoint.setRollbackOnly());
			assertThat(this.locks.isHeld(this.namespace, 1, 3)).isTrue();
		});
	}

	@Test
	void aRollbackToASavepointMadeBeforeTheFirstLockForgetsEveryLock() {
		this.outer.executeWithoutResult((status) -> {
			this.nested.executeWithoutResult((savepoint) -> {
				this.nested.executeWithoutResult((inner) -> this.locks.lock(this.namespace, 1));
				this.locks.lock(this.namespace, 2);
				savepoint.setRollbackOnly();
			});
			assertThat(this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, 1))).isEmpty();
			assertThat(this.locks.isHeld(this.namespace, 1)).isFalse();
			assertThat(this.locks.isHeld(this.namespace, 2)).isFalse();
		});
	}

	@Test
	void theKeysATryTookBeforeTheOneFoundHeldAreKnownHeldAndRefusedToASuspendedCall() {
		// Keys are tried in ascending order: the holder takes the highest, so the try
		// takes the other two first.
		List<Integer> byKey = Stream.of(1, 2, 3)
			.sorted(Comparator.comparingLong((value) -> AdvisoryLockKeys.of(this.namespace, value)))
			.toList();
		int busy = byKey.get(2);
		List<Integer> taken = byKey.subList(0, 2);
		try (LockHolder holder = LockHolder.exclusive(this.pool, AdvisoryLockKeys.of(this.namespace, busy))) {
			this.outer.executeWithoutResult((status) -> {
				assertThat(this.locks.tryLock(this.namespace, 1, 2, 3)).isFalse();
				assertThat(this.locks.isHeld(this.namespace, taken.toArray())).isTrue();
				assertThat(this.locks.isHeld(this.namespace, busy)).isFalse();
				assertThatExceptionOfType(LockTransactionException.class)
					.isThrownBy(() -> this.requiresNew.executeWithoutResult((inner) -> this.locks
						.lock(LockRequest.of(this.namespace, taken.get(0)).withTimeout(PgLocks.HANG_TIMEOUT))))
					.withMessageContaining("suspended");
			});
		}
	}

	@Test
	void aRefusalIsToldToTheListenersAsAnErrorInEitherScope() {
		List<Outcome> outcomes = new CopyOnWriteArrayList<>();
		this.locks.setListeners(
				List.of((namespace, scope, mode, waitMode, keys, values) -> (outcome, error) -> outcomes.add(outcome)));
		this.outer.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			// Invocation scope inside a transaction that began before it.
			assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> this.locks
				.execute(LockRequest.of(this.namespace, 2).withScope(LockScope.INVOCATION), (handle) -> "ran"));
			// Transaction scope, for a key the suspended outer transaction holds.
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> this.requiresNew.executeWithoutResult((inner) -> this.locks.lock(this.namespace, 1)));
		});
		assertThat(outcomes).containsExactly(Outcome.ACQUIRED, Outcome.ERROR, Outcome.ERROR);
	}

}
