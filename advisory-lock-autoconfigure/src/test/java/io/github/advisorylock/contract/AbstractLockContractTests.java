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

package io.github.advisorylock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * The lock contract, written once and run against both stacks and every topology by
 * subclassing: a subclass gives the {@link LockStack} under test (JDBC's
 * {@link io.github.advisorylock.AdvisoryLockOperations} in Spring transactions, or
 * R2DBC's {@link io.github.advisorylock.ReactiveAdvisoryLockOperations} in reactive
 * ones), on connections straight to PostgreSQL or through PgBouncer, while other sessions
 * hold keys and {@code pg_locks} is read directly from the server. What only one stack
 * has is tested in its own subclass.
 *
 * <p>
 * The suite is what CI runs on each PostgreSQL major version
 * ({@code -Dtest='*LockContractTests'}), so it sticks to what PostgreSQL 13 offers.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
abstract class AbstractLockContractTests {

	static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/** Server-side view of the locks, never through the topology under test. */
	final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	/** A namespace of its own for each test, so no two tests share a key. */
	final String namespace = "contract-" + UUID.randomUUID();

	/**
	 * Return the stack under test, on the topology under test: what the transactions, the
	 * locks and the other sessions' holders connect through.
	 * @return the stack
	 */
	protected abstract LockStack stack();

	long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	LockRequest invocation(Object... keys) {
		return LockRequest.of(this.namespace, keys).withScope(LockScope.INVOCATION);
	}

	private Future<Boolean> tryLockOnAnotherThread(Object key) {
		return this.threads
			.submit(() -> stack().inTransaction((transaction) -> transaction.tryLock(this.namespace, key)));
	}

	@Test
	void locksOnTheTransactionsOwnServerSession() {
		List<Object> seen = stack().inTransaction((transaction) -> {
			transaction.lock(this.namespace, 42);
			return List.of(transaction.backendPid(), this.pgLocks.on(key(42)));
		});
		assertThat(seen.get(1))
			.isEqualTo(List.of(new AdvisoryLock((Integer) seen.get(0), key(42), "ExclusiveLock", true)));
		assertThat(this.pgLocks.on(key(42))).isEmpty();
	}

	@Test
	void blocksASecondTransactionUntilTheHolderCommits() throws Exception {
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), key(7))) {
			Future<Boolean> waiter = this.threads.submit(() -> stack().inTransaction((transaction) -> {
				// Not the 2s default timeout: the wait must outlast a slow test thread.
				transaction.lock(LockRequest.of(this.namespace, 7).withTimeout(PgLocks.HANG_TIMEOUT));
				return true;
			}));
			this.pgLocks.awaitWaiters(key(7), 1);
			assertThat(waiter).isNotDone();
			holder.commit();
			assertThat(waiter.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void blockTimesOutWithLockBusyExceptionThenSucceedsAfterTheHolderRollsBack() {
		LockRequest request = LockRequest.of(this.namespace, 7).withTimeout(Duration.ofMillis(200));
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), key(7))) {
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> stack().inTransaction((transaction) -> {
				transaction.lock(request);
				return null;
			})).satisfies((ex) -> {
				assertThat(ex.getNamespace()).isEqualTo(this.namespace);
				assertThat(ex.getKeyValues()).containsExactly("7");
				assertThat(ex.getKeys()).containsExactly(key(7));
				assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(200));
				assertThat(stack().sqlState(ex.getCause())).isEqualTo("55P03");
				assertThat(ex).hasMessageContaining("not acquired within 200ms");
			});
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
			holder.rollback();
			assertThatNoException().isThrownBy(() -> stack().inTransaction((transaction) -> {
				transaction.lock(request);
				return null;
			}));
		}
	}

	@Test
	void aKeyFoundHeldIsWaitedForAtOnceNextTimeAndTheTransactionsLockTimeoutIsKept() throws Exception {
		// Without a lock_timeout of the transaction's own, then with one.
		for (String lockTimeout : new String[] { "0", "7s" }) {
			try (LockHolder holder = LockHolder.exclusive(stack().holders(), key(7))) {
				// A try finds the key held.
				boolean taken = stack().inTransaction((transaction) -> transaction.tryLock(this.namespace, 7));
				assertThat(taken).isFalse();
				Future<Integer> waiter = this.threads.submit(() -> stack().inTransaction((transaction) -> {
					if (!lockTimeout.equals("0")) {
						transaction.update("SET LOCAL lock_timeout = '" + lockTimeout + "'");
					}
					transaction.lock(LockRequest.of(this.namespace, 7).withTimeout(PgLocks.HANG_TIMEOUT));
					return transaction
						.queryForInt("SELECT extract(epoch FROM current_setting('lock_timeout')::interval)::integer");
				}));
				this.pgLocks.awaitWaiters(key(7), 1);
				// Waiting in the statement that waits without a try first.
				assertThat(this.pgLocks.waiterStatement(key(7))).contains(LockSql.KEPT_LOCK_TIMEOUT);
				holder.commit();
				assertThat(waiter.get(HANG_SECONDS, TimeUnit.SECONDS)).isEqualTo(lockTimeout.equals("0") ? 0 : 7);
			}
		}
		assertThat(this.pgLocks.on(key(7))).isEmpty();
	}

	@Test
	void aKeyFoundHeldTimesOutAsAnyWaitDoes() {
		LockRequest request = LockRequest.of(this.namespace, 7).withTimeout(Duration.ofMillis(200));
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), key(7))) {
			// The first call tries, then waits; the second waits at once.
			for (int call = 1; call <= 2; call++) {
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> stack().inTransaction((transaction) -> {
						transaction.lock(request);
						return null;
					}))
					.satisfies((ex) -> {
						assertThat(ex.getKeys()).containsExactly(key(7));
						assertThat(stack().sqlState(ex.getCause())).isEqualTo("55P03");
						assertThat(ex).hasMessageContaining("not acquired within 200ms");
					});
			}
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
			holder.rollback();
			int held = stack().inTransaction((transaction) -> {
				transaction.lock(request);
				return this.pgLocks.on(key(7)).size();
			});
			assertThat(held).isOne();
		}
	}

	@Test
	void aKeyFoundHeldIsStillRefusedAboveReadCommitted() {
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), key(7))) {
			boolean taken = stack().inTransaction((transaction) -> transaction.tryLock(this.namespace, 7));
			assertThat(taken).isFalse();
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> stack().inTransaction((transaction) -> {
					transaction.update("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
					transaction.lock(LockRequest.of(this.namespace, 7).withTimeout(PgLocks.HANG_TIMEOUT));
					return null;
				}))
				.withMessageContaining("runs repeatable read");
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

	@Test
	void tryFailsAtOnceWhenHeldAndTakesAFreeLock() {
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), key(7))) {
			stack().inTransaction((transaction) -> {
				assertThat(transaction.tryLock(this.namespace, 7)).isFalse();
				assertThat(transaction.tryLock(this.namespace, 8)).isTrue();
				assertThat(this.pgLocks.on(key(8))).singleElement()
					.satisfies((lock) -> assertThat(lock.granted()).isTrue());
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> transaction.lock(LockRequest.of(this.namespace, 7).withWaitMode(WaitMode.TRY)))
					.satisfies((ex) -> {
						assertThat(ex.getTimeout()).isNull();
						assertThat(ex).hasMessageContaining("held by another transaction");
					});
				return null;
			});
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

	@Test
	void sharedHoldersRunTogetherWhileExclusiveWaits() throws Exception {
		LockRequest shared = LockRequest.of(this.namespace, 7).withMode(LockMode.SHARED).withWaitMode(WaitMode.TRY);
		try (LockHolder holder = LockHolder.shared(stack().holders(), key(7))) {
			List<AdvisoryLock> seen = stack().inTransaction((transaction) -> {
				transaction.lock(shared);
				return this.pgLocks.on(key(7));
			});
			assertThat(seen).extracting(AdvisoryLock::mode, AdvisoryLock::granted)
				.containsExactly(tuple("ShareLock", true), tuple("ShareLock", true));
			Future<Boolean> exclusive = this.threads.submit(() -> stack().inTransaction((transaction) -> {
				// Not the 2s default timeout: the wait must outlast a slow test thread.
				transaction.lock(LockRequest.of(this.namespace, 7).withTimeout(PgLocks.HANG_TIMEOUT));
				return true;
			}));
			this.pgLocks.awaitWaiters(key(7), 1);
			holder.commit();
			assertThat(exclusive.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void releasesAtCommit() throws Exception {
		int held = stack().inTransaction((transaction) -> {
			transaction.lock(this.namespace, 1);
			return this.pgLocks.on(key(1)).size();
		});
		assertThat(held).isOne();
		assertThat(this.pgLocks.on(key(1))).isEmpty();
		assertThat(tryLockOnAnotherThread(1).get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void releasesAtRollback() throws Exception {
		AtomicBoolean heldInside = new AtomicBoolean();
		assertThatIllegalStateException().isThrownBy(() -> stack().inTransaction((transaction) -> {
			transaction.lock(this.namespace, 1);
			heldInside.set(this.pgLocks.on(key(1)).size() == 1);
			throw new IllegalStateException("business rule broken");
		})).withMessage("business rule broken");
		assertThat(heldInside).isTrue();
		assertThat(this.pgLocks.on(key(1))).isEmpty();
		// Marked rollback-only, the transaction ends without an exception reaching the
		// caller: the lock goes too.
		int held = stack().inTransaction((transaction) -> {
			transaction.lock(this.namespace, 2);
			transaction.setRollbackOnly();
			return this.pgLocks.on(key(2)).size();
		});
		assertThat(held).isOne();
		assertThat(this.pgLocks.on(key(2))).isEmpty();
		assertThat(tryLockOnAnotherThread(1).get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void oppositeKeyOrdersNeverDeadlock() throws Exception {
		int rounds = 20;
		CyclicBarrier start = new CyclicBarrier(2);
		List<Future<Integer>> workers = new ArrayList<>();
		for (Object[] order : List.of(new Object[] { "a", "b", "c" }, new Object[] { "c", "b", "a" })) {
			workers.add(this.threads.submit(() -> {
				for (int i = 0; i < rounds; i++) {
					start.await(HANG_SECONDS, TimeUnit.SECONDS);
					stack().inTransaction((transaction) -> {
						transaction.lock(LockRequest.of(this.namespace, order).withTimeout(Duration.ofSeconds(20)));
						return null;
					});
				}
				return rounds;
			}));
		}
		for (Future<Integer> worker : workers) {
			assertThat(worker.get(HANG_SECONDS * 2, TimeUnit.SECONDS)).isEqualTo(rounds);
		}
	}

	@Test
	void serializesCheckThenWriteAcrossTransactions() throws Exception {
		// Each caller writes back a value it read: any overlap of two critical sections
		// loses an update.
		stack().inTransaction((transaction) -> {
			transaction
				.update("CREATE TABLE IF NOT EXISTS contract_counter (name text PRIMARY KEY, value int NOT NULL)");
			transaction.update("INSERT INTO contract_counter VALUES (?, 0)", this.namespace);
			return null;
		});
		List<Future<?>> callers = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			callers.add(this.threads.submit(() -> {
				for (int j = 0; j < 10; j++) {
					stack().inTransaction((transaction) -> {
						transaction.lock(LockRequest.of(this.namespace, "counter").withTimeout(Duration.ofSeconds(20)));
						int value = transaction.queryForInt("SELECT value FROM contract_counter WHERE name = ?",
								this.namespace);
						transaction.update("UPDATE contract_counter SET value = ? WHERE name = ?", value + 1,
								this.namespace);
						return null;
					});
				}
			}));
		}
		for (Future<?> caller : callers) {
			caller.get(HANG_SECONDS * 2, TimeUnit.SECONDS);
		}
		int counted = stack().inTransaction((transaction) -> transaction
			.queryForInt("SELECT value FROM contract_counter WHERE name = ?", this.namespace));
		assertThat(counted).isEqualTo(40);
	}

	@Test
	void invocationScopeHoldsTheLockAcrossTheWorksTransactionsUntilTheWorkEnds() throws Exception {
		LockResult<Integer> result = stack().execute(invocation(1), () -> {
			int workPid = stack().inTransaction(LockStack.Transaction::backendPid);
			// The work's transaction committed; the lock is still held, and another
			// thread's transaction finds it busy.
			assertThat(this.pgLocks.on(key(1))).singleElement()
				.satisfies((lock) -> assertThat(lock.pid()).isNotEqualTo(workPid));
			assertThat(tryLockOnAnotherThread(1)).succeedsWithin(PgLocks.HANG_TIMEOUT).isEqualTo(false);
			return workPid;
		});
		assertThat(result.executed()).isTrue();
		assertThat(this.pgLocks.on(key(1))).isEmpty();
		assertThat(tryLockOnAnotherThread(1).get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void invocationScopeBlocksASecondCallUntilTheFirstEnds() throws Exception {
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<LockResult<String>> first = this.threads.submit(() -> stack().execute(invocation(1), () -> {
			holding.countDown();
			TestThreads.await(release);
			return "first";
		}));
		TestThreads.await(holding);
		Future<LockResult<String>> second = this.threads
			.submit(() -> stack().execute(invocation(1).withTimeout(PgLocks.HANG_TIMEOUT), () -> "second"));
		this.pgLocks.awaitWaiters(key(1), 1);
		assertThat(second).isNotDone();
		release.countDown();
		assertThat(first.get(HANG_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("first");
		assertThat(second.get(HANG_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("second");
	}

	@Test
	void aSessionLostInTheWorksLastMomentsFailsTheCallOnceTheWorkHasEnded() {
		List<Boolean> heard = new CopyOnWriteArrayList<>();
		stack().listen(releases(heard));
		AtomicBoolean ended = new AtomicBoolean();
		// The work ends as soon as its session is gone, before any heartbeat could find
		// it: only the release at the call's end can.
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> stack().execute(invocation(1), () -> {
			this.pgLocks.terminateHolderOf(key(1));
			ended.set(true);
			return "done";
		})).satisfies((ex) -> {
			assertThat(ex.getNamespace()).isEqualTo(this.namespace);
			assertThat(ex.getKeyValues()).containsExactly("1");
		});
		assertThat(ended).isTrue();
		assertThat(heard).containsExactly(true);
		assertThat(this.pgLocks.on(key(1))).isEmpty();
	}

	@Test
	void aWorksOwnFailureKeepsTheLossOfItsSessionAsSuppressed() {
		assertThatIllegalStateException().isThrownBy(() -> stack().execute(invocation(1), () -> {
			this.pgLocks.terminateHolderOf(key(1));
			throw new IllegalStateException("the work's own failure");
		}))
			.withMessage("the work's own failure")
			// Reactor's block() adds one of its own.
			.satisfies(
					(ex) -> assertThat(ex.getSuppressed()).filteredOn(LockLostException.class::isInstance).hasSize(1));
	}

	@Test
	void aCallWhoseSessionLivedToItsEndIsToldReleasedNotLost() {
		List<Boolean> heard = new CopyOnWriteArrayList<>();
		stack().listen(releases(heard));
		assertThat(stack().execute(invocation(1), () -> "done").value()).isEqualTo("done");
		assertThat(heard).containsExactly(false);
	}

	/** A listener that records, for each release, whether it was a loss. */
	private static LockAcquisitionListener releases(List<Boolean> heard) {
		return (namespace, scope, mode, waitMode, keys, values) -> new Acquisition() {

			@Override
			public void finished(Outcome outcome, @Nullable Throwable error) {
			}

			@Override
			public void released(boolean lost) {
				heard.add(lost);
			}

		};
	}

	@Test
	void skipRunsNothingAndLeavesNothingHeldInEitherScope() {
		List<Long> ascending = List.of(key("a"), key("b"), key("c")).stream().sorted().toList();
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), ascending.get(1))) {
			AtomicBoolean ran = new AtomicBoolean();
			assertThat(stack().execute(invocation("a", "b", "c").withWaitMode(WaitMode.SKIP), () -> ran.getAndSet(true))
				.executed()).isFalse();
			boolean executed = stack().inTransaction(
					(transaction) -> transaction
						.execute(LockRequest.of(this.namespace, "a", "b", "c").withWaitMode(WaitMode.SKIP),
								() -> ran.getAndSet(true))
						.executed());
			assertThat(executed).isFalse();
			assertThat(ran).isFalse();
			assertThat(this.pgLocks.all())
				.containsExactly(new AdvisoryLock(holder.pid(), ascending.get(1), "ExclusiveLock", true));
		}
	}

	long slot(Object value, int slot) {
		return AdvisoryLockKeys.permitSlot(key(value), slot);
	}

	LockRequest limit(int permits) {
		return LockRequest.of(this.namespace, "tenant").withPermits(permits);
	}

	/** The keys of the advisory locks a session holds. */
	List<Long> heldBy(int pid) {
		return this.pgLocks.all()
			.stream()
			.filter((lock) -> lock.pid() == pid && lock.granted())
			.map(AdvisoryLock::key)
			.toList();
	}

	@Test
	void aLimitGivesEachTransactionOneFreePermitAndATryOfAFullOneIsBusy() throws Exception {
		// A plain lock on the same namespace and value takes slot 0, one of the permits.
		try (LockHolder plain = LockHolder.exclusive(stack().holders(), key("tenant"))) {
			CountDownLatch holding = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<List<Long>> second = this.threads.submit(() -> stack().inTransaction((transaction) -> {
				transaction.lock(limit(3));
				List<Long> held = heldBy(transaction.backendPid());
				holding.countDown();
				TestThreads.await(release);
				return held;
			}));
			TestThreads.await(holding);
			List<Long> third = stack().inTransaction((transaction) -> {
				transaction.lock(limit(3));
				return heldBy(transaction.backendPid());
			});
			try {
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> stack().inTransaction((transaction) -> {
						transaction.lock(limit(2).withWaitMode(WaitMode.TRY));
						return null;
					}))
					.satisfies((ex) -> assertThat(ex.getKeys()).containsExactly(slot("tenant", 0), slot("tenant", 1)))
					.withMessageEndingWith("all 2 permits of the limit are held");
			}
			finally {
				release.countDown();
			}
			// Exactly one slot each: the first free one, in slot order.
			assertThat(second.get(HANG_SECONDS, TimeUnit.SECONDS)).containsExactly(slot("tenant", 1));
			assertThat(third).containsExactly(slot("tenant", 2));
		}
	}

	@Test
	void aLimitsWaiterTakesThePermitThatFrees() throws Exception {
		LockHolder first = LockHolder.exclusive(stack().holders(), slot("tenant", 0));
		LockHolder second = LockHolder.exclusive(stack().holders(), slot("tenant", 1));
		try (first; second) {
			Future<List<Long>> waiter = this.threads.submit(() -> stack().inTransaction((transaction) -> {
				transaction.lock(limit(2).withTimeout(PgLocks.HANG_TIMEOUT));
				return heldBy(transaction.backendPid());
			}));
			this.pgLocks.await("the call waiting for a permit",
					(locks) -> locks.stream()
						.anyMatch((lock) -> !lock.granted()
								&& (lock.key() == slot("tenant", 0) || lock.key() == slot("tenant", 1))));
			second.commit();
			assertThat(waiter.get(HANG_SECONDS, TimeUnit.SECONDS)).containsExactly(slot("tenant", 1));
		}
	}

	@Test
	void aLimitsWaitThatRunsOutOfTimeLeavesTheTransactionUsableHoldingNoPermit() {
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), slot("tenant", 0), slot("tenant", 1))) {
			stack().inTransaction((transaction) -> {
				transaction.update("SET LOCAL lock_timeout = '7s'");
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> transaction.lock(limit(2).withTimeout(Duration.ofMillis(120))))
					.withMessageContaining("not acquired within 120ms");
				// Neither a permit nor an aborted slice is left, and the lock_timeout is
				// the transaction's own again.
				assertThat(heldBy(transaction.backendPid())).isEmpty();
				assertThat(transaction
					.queryForInt("SELECT extract(epoch FROM current_setting('lock_timeout')::interval)::integer"))
					.isEqualTo(7);
				return null;
			});
		}
	}

	@Test
	void aLimitsWaitThatTakesAPermitRestoresTheLockTimeout() throws Exception {
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), slot("tenant", 0), slot("tenant", 1))) {
			Future<Integer> waiter = this.threads.submit(() -> stack().inTransaction((transaction) -> {
				transaction.update("SET LOCAL lock_timeout = '7s'");
				transaction.lock(limit(2).withTimeout(PgLocks.HANG_TIMEOUT));
				return transaction
					.queryForInt("SELECT extract(epoch FROM current_setting('lock_timeout')::interval)::integer");
			}));
			this.pgLocks.await("the call waiting for a permit",
					(locks) -> locks.stream()
						.anyMatch((lock) -> !lock.granted()
								&& (lock.key() == slot("tenant", 0) || lock.key() == slot("tenant", 1))));
			holder.commit();
			assertThat(waiter.get(HANG_SECONDS, TimeUnit.SECONDS)).isEqualTo(7);
		}
	}

	@Test
	void aNestedCallOfTheSameLimitTakesNoSecondPermit() {
		LockHolder plain = LockHolder.exclusive(stack().holders(), key("tenant"));
		List<Long> held = stack().inTransaction((transaction) -> {
			transaction.lock(limit(3));
			// Slot 0 frees: a second permit is there to take, and must not be taken.
			plain.close();
			transaction.lock(limit(3));
			return heldBy(transaction.backendPid());
		});
		assertThat(held).containsExactly(slot("tenant", 1));
	}

	@Test
	void aSkipOfAFullLimitRunsNothingAndTakesNothing() {
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), slot("tenant", 0), slot("tenant", 1))) {
			AtomicBoolean ran = new AtomicBoolean();
			List<Long> held = stack().inTransaction((transaction) -> {
				assertThat(
						transaction.execute(limit(2).withWaitMode(WaitMode.SKIP), () -> ran.getAndSet(true)).executed())
					.isFalse();
				return heldBy(transaction.backendPid());
			});
			assertThat(ran).isFalse();
			assertThat(held).isEmpty();
		}
	}

	@Test
	void aFullInvocationScopedLimitIsBusyForATrySkippedForASkipAndTakesAPermitThatFreesForABlock() throws Exception {
		LockRequest invocationLimit = limit(2).withScope(LockScope.INVOCATION);
		LockHolder first = LockHolder.exclusive(stack().holders(), slot("tenant", 0));
		LockHolder second = LockHolder.exclusive(stack().holders(), slot("tenant", 1));
		try (first; second) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> stack().execute(invocationLimit.withWaitMode(WaitMode.TRY), () -> "ran"))
				.satisfies((ex) -> assertThat(ex.getKeys()).containsExactly(slot("tenant", 0), slot("tenant", 1)))
				.withMessageEndingWith("all 2 permits of the limit are held");
			assertThat(stack().execute(invocationLimit.withWaitMode(WaitMode.SKIP), () -> "ran").executed()).isFalse();
			Future<LockResult<String>> waiter = this.threads
				.submit(() -> stack().execute(invocationLimit.withTimeout(PgLocks.HANG_TIMEOUT), () -> "ran"));
			this.pgLocks.await("the call waiting for a permit",
					(locks) -> locks.stream()
						.anyMatch((lock) -> !lock.granted()
								&& (lock.key() == slot("tenant", 0) || lock.key() == slot("tenant", 1))));
			second.commit();
			assertThat(waiter.get(HANG_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("ran");
		}
		assertThat(this.pgLocks.all()).isEmpty();
	}

	@Test
	void anInvocationScopedLimitsWaitThatRunsOutOfTimeHoldsNoPermit() {
		try (LockHolder holder = LockHolder.exclusive(stack().holders(), slot("tenant", 0), slot("tenant", 1))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> stack()
					.execute(limit(2).withScope(LockScope.INVOCATION).withTimeout(Duration.ofMillis(120)), () -> "ran"))
				.withMessageContaining("not acquired within 120ms")
				.withMessageContaining("all 2 permits of the limit are held");
			assertThat(this.pgLocks.all()).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

}
