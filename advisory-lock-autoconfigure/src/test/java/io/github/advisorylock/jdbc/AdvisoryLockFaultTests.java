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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.ServerInRecovery;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What a caller of {@link AdvisoryLockTemplate} sees when things fail around it: a
 * terminated backend, a server restart, a statement timeout, an exhausted pool, an
 * interrupted thread. Against real PostgreSQL, from several sessions at once, with the
 * {@link JdbcTransactionManager} that Spring Boot configures for JDBC.
 */
@ExtendWith({ NoAdvisoryLocksLeft.class, OutputCaptureExtension.class })
class AdvisoryLockFaultTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/**
	 * Longer than {@link PgLocks#HANG_TIMEOUT}: a failure seen within it did not wait for
	 * the lock timeout.
	 */
	private static final Duration LONG_TIMEOUT = Duration.ofSeconds(120);

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.on(TestDatabase.get().dataSource())
		.withTransactionManager(JdbcTransactionManager::new);

	private final DataSource dataSource = this.fixture.dataSource();

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final TransactionTemplate transaction = this.fixture.transaction();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	private final JdbcTemplate jdbc = this.fixture.jdbc();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "fault-" + UUID.randomUUID();

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	/** Return what the call failed with, within the hang bound. */
	private static Throwable failureOf(Future<?> call) throws InterruptedException, TimeoutException {
		try {
			call.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		throw new AssertionError("The call succeeded; a failure was expected");
	}

	/**
	 * Run the lock call, keeping what it threw before the transaction's rollback can
	 * replace it.
	 */
	private void lockRecordingFailure(AdvisoryLockTemplate locks, LockRequest request,
			AtomicReference<RuntimeException> thrown) {
		try {
			locks.lock(request);
		}
		catch (RuntimeException ex) {
			thrown.set(ex);
			throw ex;
		}
	}

	/**
	 * Assert what the transaction's caller sees when the connection died during the lock
	 * call: the transaction manager's rollback on it fails too, and Spring reports that
	 * ({@code TransactionSystemException}, "JDBC rollback failed") with the lock's own
	 * exception as the application exception it overrode.
	 */
	private static void assertRollbackFailedAfter(Throwable seenByCaller, RuntimeException thrownByLock) {
		assertThat(seenByCaller).isInstanceOfSatisfying(TransactionSystemException.class,
				(ex) -> assertThat(ex.getApplicationException()).isSameAs(thrownByLock));
	}

	@Test
	void aTerminatedHolderLetsTheWaiterProceedAndCommitsNothing() throws Exception {
		this.jdbc.execute("CREATE TABLE IF NOT EXISTS fault_rows (namespace text NOT NULL, written_by text NOT NULL)");
		AtomicInteger holderPid = new AtomicInteger();
		CountDownLatch holding = new CountDownLatch(1);
		Future<Object> holder = this.threads.inTransaction(this.transaction, () -> {
			this.locks.lock(this.namespace, 1);
			this.jdbc.update("INSERT INTO fault_rows VALUES (?, 'holder')", this.namespace);
			holderPid.set(this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class));
			holding.countDown();
			// The holder's long step, in the database, when an operator terminates its
			// backend.
			this.jdbc.execute("SELECT pg_sleep(" + HANG_SECONDS + ")");
			return null;
		});
		assertThat(holding.await(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		Future<Object> waiter = this.threads.inTransaction(this.transaction, () -> {
			this.locks.lock(LockRequest.of(this.namespace, 1).withTimeout(LONG_TIMEOUT));
			this.jdbc.update("INSERT INTO fault_rows VALUES (?, 'waiter')", this.namespace);
			return null;
		});
		this.pgLocks.awaitWaiters(key(1), 1);

		this.pgLocks.terminate(holderPid.get());

		waiter.get(HANG_SECONDS, TimeUnit.SECONDS);
		assertThat(failureOf(holder)).isInstanceOfSatisfying(TransactionSystemException.class,
				(ex) -> assertThat(ex.getApplicationException()).isInstanceOf(DataAccessResourceFailureException.class)
					.hasMessageContaining("terminating connection due to administrator command"));
		assertThat(this.jdbc.queryForList("SELECT written_by FROM fault_rows WHERE namespace = ?", String.class,
				this.namespace))
			.containsExactly("waiter");
	}

	@Test
	void aWaiterWhoseBackendIsTerminatedFailsWithAResourceFailureNamingTheLock() throws Exception {
		AtomicReference<RuntimeException> thrown = new AtomicReference<>();
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(1))) {
			Future<Object> waiter = this.threads.inTransaction(this.transaction, () -> {
				lockRecordingFailure(this.locks, LockRequest.of(this.namespace, 1).withTimeout(LONG_TIMEOUT), thrown);
				return null;
			});
			this.pgLocks.awaitWaiters(key(1), 1);
			// The caller learns of the end before the backend has left pg_locks: wait
			// for that.
			this.pgLocks.terminate(this.pgLocks.waiterPid(key(1)));

			assertRollbackFailedAfter(failureOf(waiter), thrown.get());
			// Not a LockBusyException: the lock is not known to be busy, and retrying at
			// once would not help.
			assertThat(thrown.get()).isInstanceOf(DataAccessResourceFailureException.class)
				.isNotInstanceOf(LockBusyException.class)
				.hasMessageContaining("Acquire advisory lock " + this.namespace + ":[1]");
			assertThat(this.pgLocks.on(key(1))).extracting(PgLocks.AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

	@Test
	void aServerRestartWhileWaitingFailsPromptlyAndThePoolRecovers() throws Exception {
		Path data = Files.createTempDirectory("advisory-lock-restart");
		EmbeddedPostgres server = startServer(data, 0);
		int port = server.getPort();
		String url = server.getJdbcUrl("postgres", "postgres");
		// The observer opens a connection per query, outside the application's pool, so
		// that the pool holds only the connections the application used.
		PGSimpleDataSource observer = new PGSimpleDataSource();
		observer.setUrl(url);
		try (HikariDataSource pool = dedicatedPool(url, 3)) {
			TransactionTemplate transaction = new TransactionTemplate(new JdbcTransactionManager(pool));
			AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool);
			PgLocks pgLocks = new PgLocks(observer);
			AtomicReference<RuntimeException> thrown = new AtomicReference<>();
			LockHolder holder = LockHolder.exclusive(pool, key(1));
			Future<Object> waiter = this.threads.inTransaction(transaction, () -> {
				lockRecordingFailure(locks, LockRequest.of(this.namespace, 1).withTimeout(LONG_TIMEOUT), thrown);
				return null;
			});
			pgLocks.awaitWaiters(key(1), 1);

			stop(server, data);

			// Within the hang bound, so long before the lock timeout: the shutdown ended
			// the wait.
			assertRollbackFailedAfter(failureOf(waiter), thrown.get());
			assertThat(thrown.get()).isInstanceOf(DataAccessResourceFailureException.class)
				.isNotInstanceOf(LockBusyException.class)
				.hasMessageContaining("Acquire advisory lock " + this.namespace + ":[1]");
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(holder::close);

			server = startServer(data, port);
			transaction.executeWithoutResult((status) -> {
				locks.lock(this.namespace, 1);
				assertThat(pgLocks.on(key(1))).hasSize(1);
			});
			assertThat(pgLocks.all()).isEmpty();
		}
		finally {
			server.close();
			FileSystemUtils.deleteRecursively(data);
		}
	}

	@Test
	void aServerRestartWhileAnInvocationScopedLockIsHeldIsReportedLostWithoutHidingTheWorksFailure(
			CapturedOutput output) throws Exception {
		Path data = Files.createTempDirectory("advisory-lock-restart");
		EmbeddedPostgres started = startServer(data, 0);
		int port = started.getPort();
		AtomicReference<EmbeddedPostgres> server = new AtomicReference<>(started);
		IllegalStateException workFailure = new IllegalStateException("the work's own failure");
		try (HikariDataSource pool = dedicatedPool(started.getJdbcUrl("postgres", "postgres"), 2);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool)) {
			// Long enough that a loaded machine misses no three in a row, which would
			// make the last call's lock lost too.
			locks.setHeartbeat(Duration.ofSeconds(5));
			LockRequest request = LockRequest.of(this.namespace, "job").withScope(LockScope.INVOCATION);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> locks.execute(request, (handle) -> {
				server.set(restart(server.get(), data, port));
				await().atMost(PgLocks.HANG_TIMEOUT).until(handle::isLost);
				assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::checkHeld);
				throw workFailure;
			})).isSameAs(workFailure);
			assertThat(output).contains("Advisory lock " + this.namespace + ":[job] (invocation scope) was lost");
			// The pool dropped the dead connection: the next call holds the lock again.
			assertThat(locks.execute(request, (handle) -> handle.isLost()).value()).isFalse();
		}
		finally {
			server.get().close();
			FileSystemUtils.deleteRecursively(data);
		}
	}

	@Test
	void aLockAskedOfAServerInRecoveryIsRefusedNamingRecoveryInEveryScope() throws Exception {
		try (HikariDataSource pool = dedicatedPool(ServerInRecovery.shared().jdbcUrl(), 2);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool)) {
			assertThat(new JdbcTemplate(pool).queryForObject("SELECT pg_is_in_recovery()", Boolean.class)).isTrue();
			TransactionTemplate transaction = new TransactionTemplate(new JdbcTransactionManager(pool));
			for (WaitMode waitMode : WaitMode.values()) {
				assertThatExceptionOfType(LockTransactionException.class)
					.isThrownBy(() -> transaction.executeWithoutResult((status) -> locks
						.execute(LockRequest.of(this.namespace, 1).withWaitMode(waitMode), (handle) -> "ran")))
					.withMessageContaining("asked of a server in recovery")
					.withMessageNotContaining("isolation READ COMMITTED");
			}
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> locks.execute(LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION),
						(handle) -> "ran"))
				.withMessageContaining("asked of a server in recovery");
			assertThat(new PgLocks(pool).all()).as("nothing taken on the standby").isEmpty();
		}
	}

	private static EmbeddedPostgres restart(EmbeddedPostgres server, Path data, int port) {
		try {
			stop(server, data);
			return startServer(data, port);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Stop a server and wait until its postmaster has exited: {@code close()} gives
	 * {@code pg_ctl} only a few seconds and merely logs when they run out, and a server
	 * started on the same data directory needs the old one gone.
	 */
	private static void stop(EmbeddedPostgres server, Path data) throws IOException {
		server.close();
		await().atMost(PgLocks.HANG_TIMEOUT).until(() -> !Files.exists(data.resolve("postmaster.pid")));
	}

	/**
	 * Start a server of its own on a data directory that outlives it, so that it can be
	 * stopped and started again.
	 * @param port the port, or 0 for a free one
	 */
	private static EmbeddedPostgres startServer(Path data, int port) throws IOException {
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
			.setDataDirectory(data)
			.setCleanDataDirectory(false)
			.setPGStartupWait(Duration.ofSeconds(30));
		if (port != 0) {
			builder.setPort(port);
		}
		return builder.start();
	}

	@Test
	void aStatementTimeoutShorterThanTheLockTimeoutFailsClearlyAndLeavesNoLock() throws Exception {
		List<Long> keys = List.of(key(1), key(2)).stream().sorted().toList();
		AtomicReference<RuntimeException> thrown = new AtomicReference<>();
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, keys.get(1))) {
			Future<Object> caller = this.threads.inTransaction(this.transaction, () -> {
				// Long enough, on a loaded machine too, to see the caller hold the lower
				// key while it waits for the higher one.
				this.jdbc.execute("SET LOCAL statement_timeout = '5s'");
				lockRecordingFailure(this.locks, LockRequest.of(this.namespace, 1, 2).withTimeout(LONG_TIMEOUT),
						thrown);
				return null;
			});
			// Both in one snapshot of pg_locks, read while the caller still waits.
			this.pgLocks.await("the caller holding the lower key while it waits for the higher one", (locks) -> {
				List<PgLocks.AdvisoryLock> lower = locks.stream().filter((lock) -> lock.key() == keys.get(0)).toList();
				return lower.size() == 1 && lower.get(0).granted() && locks.stream()
					.anyMatch(
							(lock) -> lock.key() == keys.get(1) && !lock.granted() && lock.pid() == lower.get(0).pid());
			});
			assertThat(failureOf(caller)).isInstanceOf(QueryTimeoutException.class)
				.hasMessageContaining("Acquire advisory lock " + this.namespace + ":")
				.isNotInstanceOf(LockBusyException.class);
			assertThat(thrown.get()).isSameAs(failureOf(caller));
			// The lower key was taken before the statement was cancelled; the rollback
			// released it.
			assertThat(this.pgLocks.all()).extracting(PgLocks.AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

	@Test
	void anExhaustedPoolFailsNewCallersAtItsTimeoutWhileWaitersTimeOutOnTheLock() throws Exception {
		// The pool's short timeout is what the third caller meets.
		try (HikariDataSource pool = dedicatedPool(TestDatabase.get().url(), 2, Duration.ofSeconds(1));
				LockHolder holder = LockHolder.exclusive(this.dataSource, key(1))) {
			TransactionTemplate transaction = new TransactionTemplate(new JdbcTransactionManager(pool));
			AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool);
			// Ample, so that the waiters still wait while the third caller meets the
			// exhausted pool.
			LockRequest request = LockRequest.of(this.namespace, 1).withTimeout(Duration.ofSeconds(6));
			List<Future<Object>> waiters = List.of(this.threads.inTransaction(transaction, () -> {
				locks.lock(request);
				return null;
			}), this.threads.inTransaction(transaction, () -> {
				locks.lock(request);
				return null;
			}));
			this.pgLocks.awaitWaiters(key(1), 2);

			// Both connections wait on the lock: a third caller gets no connection,
			// within the pool's timeout.
			assertThatExceptionOfType(CannotCreateTransactionException.class)
				.isThrownBy(() -> transaction.executeWithoutResult((status) -> locks.lock(request)))
				.withMessageContaining("Could not open JDBC Connection");
			for (Future<Object> waiter : waiters) {
				assertThat(failureOf(waiter)).isInstanceOf(LockBusyException.class);
			}
			holder.commit();
			transaction.executeWithoutResult((status) -> locks.lock(request));
			assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
		}
	}

	@Test
	void anInterruptedWaiterEndsAtTheTimeoutKeepsItsInterruptAndReturnsAUsableConnection() throws Exception {
		try (HikariDataSource pool = dedicatedPool(TestDatabase.get().url(), 1);
				LockHolder holder = LockHolder.exclusive(this.dataSource, key(1))) {
			TransactionTemplate transaction = new TransactionTemplate(new JdbcTransactionManager(pool));
			AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool);
			AtomicReference<RuntimeException> thrown = new AtomicReference<>();
			AtomicBoolean interruptKept = new AtomicBoolean();
			CountDownLatch ended = new CountDownLatch(1);
			Future<Object> waiter = this.threads.inTransaction(transaction, () -> {
				try {
					// Long enough, on a loaded machine too, for the cancel to come
					// while it waits.
					lockRecordingFailure(locks, LockRequest.of(this.namespace, 1).withTimeout(Duration.ofSeconds(5)),
							thrown);
				}
				finally {
					interruptKept.set(Thread.currentThread().isInterrupted());
					ended.countDown();
				}
				return null;
			});
			this.pgLocks.awaitWaiters(key(1), 1);

			// As an executor does for a cancelled request. The driver's socket read
			// ignores it, so the wait runs on inside PostgreSQL until the lock timeout:
			// what bounds it is the timeout.
			waiter.cancel(true);

			assertThat(ended.await(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
			assertThat(thrown.get()).isInstanceOf(LockBusyException.class);
			assertThat(interruptKept).as("the thread's interrupt status is kept").isTrue();
			this.pgLocks.await("the waiter gone", (locks2) -> locks2.stream().allMatch(PgLocks.AdvisoryLock::granted));
			// The waiter's thread rolls back and returns the connection after its lock
			// call ended: the next borrow waits for it in the pool, whose timeout only
			// catches a hang (set at its start: Hikari reads a change only at its next
			// housekeeping run).
			holder.commit();
			// The pool's only connection came back, usable.
			transaction.executeWithoutResult((status) -> locks.lock(this.namespace, 1));
		}
	}

	/**
	 * Return a pool of its own whose borrows wait up to the hang bound: a connection
	 * opened or given back slowly on a loaded machine does not fail them.
	 */
	private static HikariDataSource dedicatedPool(String url, int maximumPoolSize) {
		return dedicatedPool(url, maximumPoolSize, PgLocks.HANG_TIMEOUT);
	}

	private static HikariDataSource dedicatedPool(String url, int maximumPoolSize, Duration connectionTimeout) {
		TestDatabase database = TestDatabase.get();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(database.username());
		config.setPassword(database.password());
		config.setMaximumPoolSize(maximumPoolSize);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(connectionTimeout.toMillis());
		config.setPoolName("fault-" + maximumPoolSize);
		return new HikariDataSource(config);
	}

}
