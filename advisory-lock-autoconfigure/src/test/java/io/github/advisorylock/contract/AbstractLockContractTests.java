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

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.test.LockHolder;
import io.github.advisorylock.test.NoAdvisoryLocksLeft;
import io.github.advisorylock.test.PgLocks;
import io.github.advisorylock.test.PgLocks.AdvisoryLock;
import io.github.advisorylock.test.TestThreads;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * The lock contract, run against every topology by subclassing: a subclass gives the
 * {@link DataSource} the application would use (direct to PostgreSQL, or through
 * PgBouncer), and every lock here is taken through
 * {@link io.github.advisorylock.AdvisoryLockOperations}, inside a real Spring transaction
 * on it or, for an invocation scope, on a connection of its own derived from it, while
 * {@code pg_locks} is read directly from the server.
 *
 * <p>
 * The suite is what CI runs on each PostgreSQL major version
 * ({@code -Dtest='*LockContractTests'}), so it sticks to what PostgreSQL 13 offers.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
abstract class AbstractLockContractTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/**
	 * The topology under test, asked for in {@link #wire()}: one that is not installed
	 * aborts the test there.
	 */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.on(this::dataSource);

	/** Server-side view of the locks, never through the topology under test. */
	private final PgLocks pgLocks = this.fixture.pgLocks();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	/** A namespace of its own for each test, so no two tests share a key. */
	private final String namespace = "contract-" + UUID.randomUUID();

	private DataSource dataSource;

	private TransactionTemplate transaction;

	private JdbcTemplate jdbc;

	private AdvisoryLockTemplate locks;

	/**
	 * Return the data source of the topology under test: what the transactions, the locks
	 * and the other sessions' holders connect through.
	 * @return the data source
	 */
	protected abstract DataSource dataSource();

	@BeforeEach
	void wire() {
		this.dataSource = this.fixture.dataSource();
		this.transaction = this.fixture.transaction();
		this.jdbc = this.fixture.jdbc();
		this.locks = this.fixture.locks();
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	@Test
	void locksOnTheTransactionsOwnServerSession() {
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 42);
			Integer pid = this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
			assertThat(this.pgLocks.on(key(42))).containsExactly(new AdvisoryLock(pid, key(42), "ExclusiveLock", true));
		});
	}

	@Test
	void blocksASecondTransactionUntilTheHolderCommits() throws Exception {
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(7))) {
			Future<Boolean> waiter = this.threads.inTransaction(this.transaction, () -> {
				// Not the 2s default timeout: the wait must outlast a slow test thread.
				this.locks.lock(LockRequest.of(this.namespace, 7).withTimeout(PgLocks.HANG_TIMEOUT));
				return true;
			});
			this.pgLocks.awaitWaiters(key(7), 1);
			assertThat(waiter).isNotDone();
			holder.commit();
			assertThat(waiter.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void blockTimesOutWithLockBusyExceptionThenSucceedsAfterTheHolderRollsBack() {
		LockRequest request = LockRequest.of(this.namespace, 7).withTimeout(Duration.ofMillis(200));
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(7))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(request)))
				.satisfies((ex) -> {
					assertThat(ex.getNamespace()).isEqualTo(this.namespace);
					assertThat(ex.getKeyValues()).containsExactly("7");
					assertThat(ex.getKeys()).containsExactly(key(7));
					assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(200));
					assertThat(ex.getCause()).isInstanceOf(SQLException.class);
					assertThat(((SQLException) ex.getCause()).getSQLState()).isEqualTo("55P03");
					assertThat(ex).hasMessageContaining("not acquired within 200ms");
				});
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
			holder.rollback();
			assertThatNoException()
				.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(request)));
		}
	}

	@Test
	void tryFailsAtOnceWhenHeldAndTakesAFreeLock() {
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(7))) {
			this.transaction.executeWithoutResult((status) -> {
				assertThat(this.locks.tryLock(this.namespace, 7)).isFalse();
				assertThat(this.locks.tryLock(this.namespace, 8)).isTrue();
				assertThat(this.pgLocks.on(key(8))).singleElement()
					.satisfies((lock) -> assertThat(lock.granted()).isTrue());
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> this.locks.lock(LockRequest.of(this.namespace, 7).withWaitMode(WaitMode.TRY)))
					.satisfies((ex) -> {
						assertThat(ex.getTimeout()).isNull();
						assertThat(ex).hasMessageContaining("held by another transaction");
					});
			});
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

	@Test
	void sharedHoldersRunTogetherWhileExclusiveWaits() throws Exception {
		LockRequest shared = LockRequest.of(this.namespace, 7).withMode(LockMode.SHARED).withWaitMode(WaitMode.TRY);
		try (LockHolder holder = LockHolder.shared(this.dataSource, key(7))) {
			this.transaction.executeWithoutResult((status) -> {
				assertThatNoException().isThrownBy(() -> this.locks.lock(shared));
				assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::mode, AdvisoryLock::granted)
					.containsExactly(tuple("ShareLock", true), tuple("ShareLock", true));
			});
			Future<Boolean> exclusive = this.threads.inTransaction(this.transaction, () -> {
				// Not the 2s default timeout: the wait must outlast a slow test thread.
				this.locks.lock(LockRequest.of(this.namespace, 7).withTimeout(PgLocks.HANG_TIMEOUT));
				return true;
			});
			this.pgLocks.awaitWaiters(key(7), 1);
			holder.commit();
			assertThat(exclusive.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void releasesAtCommit() throws Exception {
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			assertThat(this.pgLocks.on(key(1))).hasSize(1);
		});
		assertThat(this.pgLocks.on(key(1))).isEmpty();
		assertThat(this.threads.inTransaction(this.transaction, () -> this.locks.tryLock(this.namespace, 1))
			.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void releasesAtRollback() throws Exception {
		assertThatIllegalStateException().isThrownBy(() -> this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			assertThat(this.pgLocks.on(key(1))).hasSize(1);
			throw new IllegalStateException("business rule broken");
		}));
		assertThat(this.pgLocks.on(key(1))).isEmpty();
		// Marked rollback-only, the transaction ends without an exception reaching the
		// caller: the lock goes too.
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 2);
			assertThat(this.pgLocks.on(key(2))).hasSize(1);
			status.setRollbackOnly();
		});
		assertThat(this.pgLocks.on(key(2))).isEmpty();
		assertThat(this.threads.inTransaction(this.transaction, () -> this.locks.tryLock(this.namespace, 1))
			.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
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
					this.transaction.executeWithoutResult((status) -> this.locks
						.lock(LockRequest.of(this.namespace, order).withTimeout(Duration.ofSeconds(20))));
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
		this.jdbc.execute("CREATE TABLE IF NOT EXISTS contract_counter (name text PRIMARY KEY, value int NOT NULL)");
		this.jdbc.update("INSERT INTO contract_counter VALUES (?, 0)", this.namespace);
		List<Future<?>> callers = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			callers.add(this.threads.submit(() -> {
				for (int j = 0; j < 10; j++) {
					this.transaction.executeWithoutResult((status) -> {
						this.locks.lock(LockRequest.of(this.namespace, "counter").withTimeout(Duration.ofSeconds(20)));
						Integer value = this.jdbc.queryForObject("SELECT value FROM contract_counter WHERE name = ?",
								Integer.class, this.namespace);
						this.jdbc.update("UPDATE contract_counter SET value = ? WHERE name = ?", value + 1,
								this.namespace);
					});
				}
			}));
		}
		for (Future<?> caller : callers) {
			caller.get(HANG_SECONDS * 2, TimeUnit.SECONDS);
		}
		assertThat(this.jdbc.queryForObject("SELECT value FROM contract_counter WHERE name = ?", Integer.class,
				this.namespace))
			.isEqualTo(40);
	}

	@Test
	void invocationScopeHoldsTheLockAcrossTheWorksTransactionsUntilTheCallReturns() throws Exception {
		LockResult<Integer> result = this.locks.execute(invocation(1), (handle) -> {
			Integer workPid = this.transaction
				.execute((status) -> this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class));
			// The work's transaction committed; the lock is still held, and another
			// thread's transaction finds it busy (on this thread it would be re-entrant).
			assertThat(this.pgLocks.on(key(1))).singleElement()
				.satisfies((lock) -> assertThat(lock.pid()).isNotEqualTo(workPid));
			assertThat(getWithinHangBound(
					this.threads.inTransaction(this.transaction, () -> this.locks.tryLock(this.namespace, 1))))
				.isFalse();
			return workPid;
		});
		assertThat(result.executed()).isTrue();
		assertThat(this.pgLocks.on(key(1))).isEmpty();
		assertThat(this.threads.inTransaction(this.transaction, () -> this.locks.tryLock(this.namespace, 1))
			.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void invocationScopeBlocksASecondCallUntilTheFirstReturns() throws Exception {
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<LockResult<String>> first = this.threads.submit(() -> this.locks.execute(invocation(1), (handle) -> {
			holding.countDown();
			TestThreads.await(release);
			return "first";
		}));
		TestThreads.await(holding);
		Future<LockResult<String>> second = this.threads
			.submit(() -> this.locks.execute(invocation(1).withTimeout(PgLocks.HANG_TIMEOUT), (handle) -> "second"));
		this.pgLocks.awaitWaiters(key(1), 1);
		assertThat(second).isNotDone();
		release.countDown();
		assertThat(first.get(HANG_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("first");
		assertThat(second.get(HANG_SECONDS, TimeUnit.SECONDS).value()).isEqualTo("second");
	}

	@Test
	void skipRunsNothingAndLeavesNothingHeldInEitherScope() {
		List<Long> ascending = List.of(key("a"), key("b"), key("c")).stream().sorted().toList();
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, ascending.get(1))) {
			AtomicBoolean ran = new AtomicBoolean();
			assertThat(this.locks
				.execute(invocation("a", "b", "c").withWaitMode(WaitMode.SKIP), (handle) -> ran.getAndSet(true))
				.executed()).isFalse();
			this.transaction.executeWithoutResult(
					(status) -> assertThat(this.locks
						.execute(LockRequest.of(this.namespace, "a", "b", "c").withWaitMode(WaitMode.SKIP),
								(handle) -> ran.getAndSet(true))
						.executed()).isFalse());
			assertThat(ran).isFalse();
			assertThat(this.pgLocks.all())
				.containsExactly(new AdvisoryLock(holder.pid(), ascending.get(1), "ExclusiveLock", true));
		}
	}

	private LockRequest invocation(Object... keys) {
		return LockRequest.of(this.namespace, keys).withScope(LockScope.INVOCATION);
	}

	private static <T> T getWithinHangBound(Future<T> future) {
		try {
			return future.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
