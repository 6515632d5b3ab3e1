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

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DeadlockLoserDataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link AdvisoryLockTemplate} against real PostgreSQL, from several
 * connections at once: how it takes its keys, bounds its waits, counts its round trips
 * and refuses what it cannot lock. What must hold on every server and through PgBouncer
 * (blocking, timing out, TRY, shared, release at commit and at rollback) is the contract
 * suite's, {@code io.github.advisorylock.contract.AbstractLockContractTests}, and is not
 * repeated here.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockTemplateTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	private final RecordingDataSource dataSource = new RecordingDataSource(TestDatabase.get().dataSource());

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.on(this.dataSource);

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final TransactionTemplate transaction = this.fixture.transaction();

	private final JdbcTemplate jdbc = this.fixture.jdbc();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	/** A namespace of its own for each test, so no two tests share a key. */
	private final String namespace = "test-" + UUID.randomUUID();

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	@Test
	void holderDiagnosisSwitchedOnNamesTheHolderAfterATryAndAfterATimeoutAndSwitchedOffNamesNone() {
		this.locks.setHolderDiagnosis(true);
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			LockRequest tried = LockRequest.of(this.namespace, 1).withWaitMode(WaitMode.TRY);
			LockRequest timed = LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(200));
			for (LockRequest request : List.of(tried, timed)) {
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(request)))
					.satisfies((ex) -> assertThat(ex.getHolders()).as(request.waitMode().name())
						.singleElement()
						.satisfies((info) -> assertThat(info.pid()).isEqualTo(holder.pid())));
			}
			this.locks.setHolderDiagnosis(false);
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(tried)))
				.satisfies((ex) -> assertThat(ex.isDiagnosed()).isFalse());
			holder.rollback();
		}
	}

	@Test
	void theTimeoutBoundsTheWholeAcquisitionNotEachKey() throws Exception {
		// Three held keys; each holder lets go once the caller has waited 2s for it.
		// PostgreSQL applies lock_timeout to each wait, so a per-key timeout of 5s would
		// let the caller through after ~6s. Seconds, not milliseconds: the observer must
		// see the first wait before the timeout ends it, on a loaded machine too.
		List<Long> keys = List.of(key(1), key(2), key(3)).stream().sorted().toList();
		List<LockHolder> holders = new ArrayList<>();
		keys.forEach((key) -> holders.add(LockHolder.exclusive(TestDatabase.get().dataSource(), key)));
		try {
			Future<?> caller = this.threads.inTransaction(this.transaction, () -> {
				this.locks.lock(LockRequest.of(this.namespace, 1, 2, 3).withTimeout(Duration.ofSeconds(5)));
				return null;
			});
			List<Boolean> waited = new ArrayList<>();
			for (int i = 0; i < keys.size(); i++) {
				waited.add(this.pgLocks.awaitWaitingFor(keys.get(i), Duration.ofSeconds(2), caller::isDone));
				holders.get(i).commit();
			}
			// The caller did wait for the first key: the timeout is not cut short.
			assertThat(waited.get(0)).isTrue();
			assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
				.isThrownBy(() -> caller.get(HANG_SECONDS, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockBusyException.class);
		}
		finally {
			holders.forEach(LockHolder::close);
		}
	}

	@Test
	void refusesAConnectionInAutoCommitBoundOutsideItsTransaction() {
		try (HikariDataSource other = TestDatabase.get().newDataSource(1)) {
			TransactionTemplate otherTransaction = new TransactionTemplate(new DataSourceTransactionManager(other));
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> otherTransaction.executeWithoutResult((status) -> {
					// Binds a connection of this DataSource, in auto-commit, to the other
					// manager's transaction.
					this.jdbc.queryForObject("SELECT 1", Integer.class);
					this.locks.lock(this.namespace, 1);
				}))
				.withMessageContaining("auto-commit");
		}
	}

	@Test
	void defaultTimeoutAppliesWhenTheRequestGivesNone() {
		this.locks.setDefaultTimeout(Duration.ofMillis(150));
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(this.namespace, 7)))
				.satisfies((ex) -> assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(150)));
		}
	}

	@Test
	void bindsTheTimeoutOfEachWait() {
		this.locks.setDefaultTimeout(Duration.ofMillis(150));
		List<LockRequest> requests = List.of(LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(200)),
				LockRequest.of(this.namespace, 2), LockRequest.of(this.namespace, 3).withTimeout(Duration.ofNanos(1)),
				LockRequest.of(this.namespace, 4).withTimeout(Duration.ofSeconds(1)));
		List<LockHolder> holders = new ArrayList<>();
		List.of(1, 2, 3, 4)
			.forEach((value) -> holders.add(LockHolder.exclusive(TestDatabase.get().dataSource(), key(value))));
		try {
			for (LockRequest request : requests) {
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(request)));
			}
		}
		finally {
			holders.forEach(LockHolder::close);
		}
		// For each call: the key of its try; then, as the try found it held, the timeout
		// in milliseconds of its wait.
		assertThat(this.dataSource.parameters()).containsExactly(String.valueOf(key(1)), "200", String.valueOf(key(2)),
				"150", String.valueOf(key(3)), "1", String.valueOf(key(4)), "1000");
	}

	@Test
	void sharedWaitsForExclusive() {
		LockRequest shared = LockRequest.of(this.namespace, 7).withMode(LockMode.SHARED).withWaitMode(WaitMode.TRY);
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(shared)));
		}
	}

	@Test
	void keysAreExpandedAndDeduplicated() {
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, List.of(3, 1), new Integer[] { 2, 1 }, new long[] { 3L }, "1");
			assertThat(this.pgLocks.all()).extracting(AdvisoryLock::key)
				.containsExactlyInAnyOrder(key(1), key(2), key(3));
		});
	}

	@Test
	void tryOfSeveralKeysStopsAtTheFirstHeldOne() {
		List<Long> keys = List.of(key("a"), key("b"), key("c")).stream().sorted().toList();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), keys.get(1))) {
			this.transaction.executeWithoutResult((status) -> {
				assertThat(this.locks.tryLock(this.namespace, "a", "b", "c")).isFalse();
				Integer pid = this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
				// Taken in ascending order: the lowest key is now held (until the
				// transaction ends), the highest was never tried.
				assertThat(this.pgLocks.on(keys.get(0)))
					.containsExactly(new AdvisoryLock(pid, keys.get(0), "ExclusiveLock", true));
				assertThat(this.pgLocks.on(keys.get(2))).isEmpty();
			});
		}
	}

	@Test
	void sharedBlockTakesAShareLock() {
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(LockRequest.of(this.namespace, 7).withMode(LockMode.SHARED));
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::mode).containsExactly("ShareLock");
		});
	}

	@Test
	void keysAreLockedInAscendingOrder() throws Exception {
		long low = Math.min(key("a"), key("b"));
		long high = Math.max(key("a"), key("b"));
		String highValue = (high == key("a")) ? "a" : "b";
		String lowValue = (high == key("a")) ? "b" : "a";
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), high)) {
			// Named high first: taken in ascending order, the low key is held while the
			// high one is awaited.
			Future<Boolean> caller = this.threads.inTransaction(this.transaction, () -> {
				// Not the 2s default timeout: the wait must outlast a slow test thread.
				this.locks.lock(LockRequest.of(this.namespace, highValue, lowValue).withTimeout(PgLocks.HANG_TIMEOUT));
				return true;
			});
			this.pgLocks.awaitWaiters(high, 1);
			int callerPid = this.pgLocks.waiterPid(high);
			assertThat(this.pgLocks.on(low)).containsExactly(new AdvisoryLock(callerPid, low, "ExclusiveLock", true));
			holder.commit();
			assertThat(caller.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	@SuppressWarnings("deprecation")
	void deadlockIsSpringsDeadlockLoserDataAccessException() throws Exception {
		CountDownLatch bothHoldOne = new CountDownLatch(2);
		List<Future<Boolean>> workers = new ArrayList<>();
		for (String[] order : List.of(new String[] { "a", "b" }, new String[] { "b", "a" })) {
			workers.add(this.threads.inTransaction(this.transaction, () -> {
				this.locks.lock(this.namespace, order[0]);
				bothHoldOne.countDown();
				bothHoldOne.await(HANG_SECONDS, TimeUnit.SECONDS);
				// Two separate calls in opposite orders: the one thing the sorted keys of
				// a single call cannot prevent.
				this.locks.lock(LockRequest.of(this.namespace, order[1]).withTimeout(Duration.ofSeconds(20)));
				return true;
			}));
		}
		List<Throwable> failures = new ArrayList<>();
		for (Future<Boolean> worker : workers) {
			try {
				worker.get(HANG_SECONDS, TimeUnit.SECONDS);
			}
			catch (java.util.concurrent.ExecutionException ex) {
				failures.add(ex.getCause());
			}
		}
		// Spring's translator for PostgreSQL maps 40P01 to
		// DeadlockLoserDataAccessException, which Spring Framework deprecates in favour
		// of its parent, PessimisticLockingFailureException: catch the parent.
		assertThat(failures).singleElement()
			.isInstanceOf(DeadlockLoserDataAccessException.class)
			.isInstanceOf(PessimisticLockingFailureException.class)
			.isNotInstanceOf(LockBusyException.class)
			.extracting(Throwable::getCause)
			.satisfies((cause) -> assertThat(((SQLException) cause).getSQLState()).isEqualTo("40P01"));
	}

	@Test
	void freeLocksLeaveTheTransactionsLockTimeoutAlone() {
		this.transaction.executeWithoutResult((status) -> {
			this.jdbc.execute("SET LOCAL lock_timeout = '7s'");
			this.locks.lock(LockRequest.of(this.namespace, 1, 2).withTimeout(Duration.ofMillis(200)));
			assertThat(this.jdbc.queryForObject("SHOW lock_timeout", String.class)).isEqualTo("7s");
			this.locks.lock(LockRequest.of(this.namespace, 3).withMode(LockMode.SHARED));
			assertThat(this.jdbc.queryForObject("SHOW lock_timeout", String.class)).isEqualTo("7s");
		});
	}

	@Test
	void restoresTheSessionLockTimeoutAfterASharedWait() throws Exception {
		String sessionDefault = this.jdbc.queryForObject("SHOW lock_timeout", String.class);
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(5))) {
			Future<String> caller = this.threads.inTransaction(this.transaction, () -> {
				this.locks.lock(LockRequest.of(this.namespace, 5)
					.withMode(LockMode.SHARED)
					.withTimeout(Duration.ofSeconds(20)));
				return this.jdbc.queryForObject("SHOW lock_timeout", String.class);
			});
			this.pgLocks.awaitWaiters(key(5), 1);
			holder.commit();
			assertThat(caller.get(HANG_SECONDS, TimeUnit.SECONDS)).isEqualTo(sessionDefault);
		}
	}

	@Test
	void waitsForTheHeldKeyThenTakesTheKeysAfterIt() throws Exception {
		List<Long> keys = List.of(key(1), key(2), key(3)).stream().sorted().toList();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), keys.get(0))) {
			Future<List<Long>> caller = this.threads.inTransaction(this.transaction, () -> {
				this.locks.lock(LockRequest.of(this.namespace, 1, 2, 3).withTimeout(Duration.ofSeconds(20)));
				return this.jdbc.queryForList(
						"SELECT " + PgLocks.KEY_EXPRESSION + " FROM pg_locks "
								+ "WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() ORDER BY 1",
						Long.class);
			});
			this.pgLocks.awaitWaiters(keys.get(0), 1);
			// The try stopped at the held key: the caller holds none of the keys after it
			// while it waits.
			assertThat(this.pgLocks.on(keys.get(1))).isEmpty();
			holder.commit();
			assertThat(caller.get(HANG_SECONDS, TimeUnit.SECONDS)).containsExactlyElementsOf(keys);
		}
	}

	@Test
	void restoresThePreviousLockTimeoutAfterWaiting() throws Exception {
		// The last of the call's keys is held: the try takes the others, and the wait
		// sets and restores the timeout.
		List<Long> keys = List.of(key(1), key(2), key(3)).stream().sorted().toList();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), keys.get(2))) {
			Future<String> caller = this.threads.inTransaction(this.transaction, () -> {
				this.jdbc.execute("SET LOCAL lock_timeout = '7s'");
				this.locks.lock(LockRequest.of(this.namespace, 1, 2, 3).withTimeout(Duration.ofSeconds(20)));
				return this.jdbc.queryForObject("SHOW lock_timeout", String.class);
			});
			this.pgLocks.awaitWaiters(keys.get(2), 1);
			int callerPid = this.pgLocks.waiterPid(keys.get(2));
			assertThat(this.pgLocks.on(keys.get(0)))
				.containsExactly(new AdvisoryLock(callerPid, keys.get(0), "ExclusiveLock", true));
			holder.commit();
			assertThat(caller.get(HANG_SECONDS, TimeUnit.SECONDS)).isEqualTo("7s");
		}
	}

	@Test
	void isReentrantWithinATransaction() {
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			assertThat(this.locks.tryLock(this.namespace, 1)).isTrue();
			assertThatNoException().isThrownBy(
					() -> this.locks.lock(LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(100))));
		});
	}

	@Test
	void takesOneRoundTripToAcquireFreeLocksWhateverTheNumberOfKeys() {
		try (RoundTripCounter counter = new RoundTripCounter()) {
			this.transaction.executeWithoutResult((status) -> {
				for (int keys : new int[] { 1, 2, 8, 64 }) {
					List<Integer> values = java.util.stream.IntStream.range(0, keys).boxed().toList();
					counter.reset();
					this.locks.lock(LockRequest.of(this.namespace, values).withTimeout(Duration.ofMillis(500)));
					assertThat(counter.roundTrips()).as("round trips for %d keys", keys).isOne();
					counter.reset();
					this.locks.tryLock(this.namespace, values);
					assertThat(counter.roundTrips()).as("round trips to try %d keys", keys).isOne();
				}
			});
		}
	}

	@Test
	void aCallThatMustWaitTakesOneMoreRoundTripToWait() throws Exception {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(2));
				RoundTripCounter counter = new RoundTripCounter()) {
			Future<?> release = this.threads.submit(() -> {
				this.pgLocks.awaitWaiters(key(2), 1);
				holder.commit();
				return null;
			});
			this.transaction.executeWithoutResult((status) -> {
				counter.reset();
				this.locks.lock(LockRequest.of(this.namespace, 1, 2).withTimeout(Duration.ofSeconds(20)));
				assertThat(counter.roundTrips()).as("round trips: the try, then the wait").isEqualTo(2);
			});
			release.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
	}

	@Test
	void failsWithoutTransactionBeforeAnySql() {
		assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> this.locks.lock(this.namespace, 1))
			.withMessageContaining("needs an actual transaction");
		this.transaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(this.namespace, 1)));
		assertThat(this.dataSource.statements()).isZero();
	}

	@Test
	void failsForDeclaredRepeatableReadBeforeAnySql() {
		for (int isolation : new int[] { TransactionDefinition.ISOLATION_REPEATABLE_READ,
				TransactionDefinition.ISOLATION_SERIALIZABLE }) {
			this.transaction.setIsolationLevel(isolation);
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(this.namespace, 1)))
				.withMessageContaining("needs isolation READ COMMITTED");
		}
		assertThat(this.dataSource.statements()).isZero();
	}

	@Test
	void failsWhenTheDatabaseDefaultIsRepeatableReadUnlessReadCommittedIsDeclared() throws Exception {
		String url = TestDatabase.get().createDatabase("advisory_lock_repeatable_read");
		this.jdbc.execute("ALTER DATABASE advisory_lock_repeatable_read SET default_transaction_isolation = "
				+ "'repeatable read'");
		try (HikariDataSource repeatableRead = TestDatabase.get().newDataSource(url, 2)) {
			new JdbcTemplate(repeatableRead).execute("CREATE TABLE rows (id int)");
			AdvisoryLockTemplate locks = new AdvisoryLockTemplate(repeatableRead);
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(repeatableRead));
			JdbcTemplate jdbc = new JdbcTemplate(repeatableRead);
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> transaction.executeWithoutResult((status) -> {
					locks.lock(this.namespace, 1);
					jdbc.update("INSERT INTO rows VALUES (1)");
				}))
				.withMessageContaining("repeatable read");
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> transaction.executeWithoutResult((status) -> locks.tryLock(this.namespace, 1)));
			assertThat(new PgLocks(repeatableRead).all()).isEmpty();
			// Refused before any lock is taken, not taken and then refused: the
			// transaction holds none.
			String ownLocks = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()";
			List<Runnable> calls = List.of(() -> locks.lock(this.namespace, 1),
					() -> locks.lock(this.namespace, 1, 2, 3), () -> locks.tryLock(this.namespace, 1),
					() -> locks.tryLock(this.namespace, 1, 2, 3));
			for (Runnable call : calls) {
				transaction.executeWithoutResult((status) -> {
					assertThatExceptionOfType(LockTransactionException.class).isThrownBy(call::run)
						.withMessageContaining("repeatable read");
					assertThat(jdbc.queryForObject(ownLocks, Integer.class)).isZero();
				});
			}
			assertThat(jdbc.queryForObject("SELECT count(*) FROM rows", Integer.class)).isZero();

			transaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
			transaction.executeWithoutResult((status) -> {
				locks.lock(this.namespace, 1);
				assertThat(new PgLocks(repeatableRead).all()).hasSize(1);
			});
			assertThat(new PgLocks(repeatableRead).all()).isEmpty();
		}
	}

	@Test
	void failsWhenNoConnectionOfItsDataSourceIsBoundToTheTransaction() {
		try (HikariDataSource other = TestDatabase.get().newDataSource(1)) {
			TransactionTemplate otherTransaction = new TransactionTemplate(new DataSourceTransactionManager(other));
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> otherTransaction.executeWithoutResult((status) -> this.locks.lock(this.namespace, 1)))
				.withMessageContaining("no JDBC connection of its DataSource");
		}
		assertThat(this.dataSource.statements()).isZero();
	}

	@Test
	void refusesMoreDistinctKeysThanTheLimitBeforeAnySql() {
		this.locks.setMaxKeys(2);
		this.transaction.executeWithoutResult((status) -> {
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> this.locks.lock(this.namespace, 1, 2, 3))
				.withMessageContaining("more than 2 distinct keys")
				.withMessageContaining("advisory-lock.max-keys");
		});
		assertThat(this.dataSource.statements()).isZero();
		this.transaction.executeWithoutResult((status) -> this.locks.lock(this.namespace, 1, 2, 2, List.of(1)));
	}

	@Test
	void refusesUnusableKeysBeforeAnySql() {
		this.transaction.executeWithoutResult((status) -> {
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> this.locks.lock(this.namespace, (Object) null));
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> this.locks.lock(this.namespace, List.of()))
				.withMessageContaining("must not be empty");
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> this.locks.lock(this.namespace, new Object[0]));
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> this.locks.lock(this.namespace))
				.withMessageContaining("names no key");
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> this.locks.lock(this.namespace, 1.5d));
		});
		assertThat(this.dataSource.statements()).isZero();
	}

	@Test
	void translatesOtherSqlErrors() {
		this.transaction.executeWithoutResult((status) -> {
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.jdbc.execute("SELECT 1 / 0"));
			// The transaction is now aborted: PostgreSQL refuses every statement until it
			// ends.
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.locks.lock(this.namespace, 1))
				.withMessageContaining("Acquire advisory lock")
				.satisfies((ex) -> assertThat(ex).isNotInstanceOf(LockBusyException.class));
			status.setRollbackOnly();
		});
	}

	@Test
	void rejectsInvalidSettings() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.locks.setDefaultTimeout(Duration.ZERO))
			.withMessageContaining("between 1ms and");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> this.locks.setMaxKeys(0))
			.withMessageContaining("must be positive");
	}

}
