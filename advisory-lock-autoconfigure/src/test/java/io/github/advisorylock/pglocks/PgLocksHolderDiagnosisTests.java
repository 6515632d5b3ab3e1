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

package io.github.advisorylock.pglocks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.jdbc.RoundTripCounter;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link PgLocksHolderDiagnosis} through {@link AdvisoryLockTemplate}: a busy
 * lock's exception names its holder, against real PostgreSQL, without ever waiting for a
 * pool.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class PgLocksHolderDiagnosisTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/**
	 * Generous: a diagnosis that must name the holder must not time out connecting or
	 * reading on a loaded machine.
	 */
	private static final Duration DIAGNOSIS_TIMEOUT = PgLocks.HANG_TIMEOUT;

	private final DataSource dataSource = TestDatabase.get().dataSource();

	private final PgLocks pgLocks = new PgLocks(this.dataSource);

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "diagnosis-" + UUID.randomUUID();

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private AdvisoryLockTemplate template(DataSource dataSource, PgLocksHolderDiagnosis diagnosis) {
		AdvisoryLockTemplate template = new AdvisoryLockTemplate(dataSource);
		template.setHolderDiagnosis(diagnosis);
		return template;
	}

	private static void inTransaction(DataSource dataSource, Runnable work) {
		new TransactionTemplate(new DataSourceTransactionManager(dataSource))
			.executeWithoutResult((status) -> work.run());
	}

	@Test
	void timedOutCallNamesTheHoldersPidApplicationStateAndTransactionAge() throws SQLException {
		AdvisoryLockTemplate locks = template(this.dataSource,
				PgLocksHolderDiagnosis.forDataSource(this.dataSource, DIAGNOSIS_TIMEOUT));
		LockRequest request = LockRequest.of(this.namespace, 7).withTimeout(Duration.ofMillis(200));
		try (NamedHolder holder = new NamedHolder(this.dataSource, "billing-worker", key(7))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> inTransaction(this.dataSource, () -> locks.lock(request)))
				.satisfies((ex) -> {
					assertThat(ex.isDiagnosed()).isTrue();
					assertThat(ex.getHolders()).singleElement().satisfies((info) -> {
						assertThat(info.pid()).isEqualTo(holder.pid);
						assertThat(info.key()).isEqualTo(key(7));
						assertThat(info.mode()).isEqualTo("ExclusiveLock");
						assertThat(info.applicationName()).isEqualTo("billing-worker");
						assertThat(info.state()).isEqualTo("idle in transaction");
						assertThat(info.waitEventType()).isEqualTo("Client");
						assertThat(info.waitEvent()).isEqualTo("ClientRead");
						// The holder's transaction began before the caller waited its
						// 200ms.
						assertThat(info.transactionAge()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
					});
					assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(200));
					assertThat(((SQLException) ex.getCause()).getSQLState()).isEqualTo("55P03");
					assertThat(ex).hasMessageContaining("not acquired within 200ms")
						.hasMessageContaining("held by pid " + holder.pid + " (application 'billing-worker', "
								+ "idle in transaction, transaction open ")
						.hasMessageContaining("waiting for Client:ClientRead");
					assertThat(ex.getSuppressed()).isEmpty();
				});
		}
	}

	@Test
	void timeoutOfSeveralKeysNamesOnlyOtherSessionsNotTheCallersOwnLocks() {
		AdvisoryLockTemplate locks = template(this.dataSource,
				PgLocksHolderDiagnosis.forDataSource(this.dataSource, DIAGNOSIS_TIMEOUT));
		List<Long> keys = List.of(key(1), key(2)).stream().sorted().toList();
		// The caller takes the lower key, then times out on the higher one, which another
		// session holds.
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, keys.get(1))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> inTransaction(this.dataSource,
						() -> locks.lock(LockRequest.of(this.namespace, 1, 2).withTimeout(Duration.ofMillis(200)))))
				.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid, LockHolderInfo::key)
					.containsExactly(org.assertj.core.groups.Tuple.tuple(holder.pid(), keys.get(1))));
		}
	}

	@Test
	void tryMissIsDiagnosedOnTheCallersOwnConnectionWithoutAnyOther() {
		// No direct connection source: only the caller's own (healthy) connection can
		// answer.
		AdvisoryLockTemplate locks = template(this.dataSource, new PgLocksHolderDiagnosis(DIAGNOSIS_TIMEOUT, null));
		LockRequest request = LockRequest.of(this.namespace, 3).withWaitMode(WaitMode.TRY);
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(3))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> inTransaction(this.dataSource, () -> locks.lock(request)))
				.satisfies((ex) -> {
					assertThat(ex.getHolders()).extracting(LockHolderInfo::pid).containsExactly(holder.pid());
					assertThat(ex)
						.hasMessageContaining("is held by another transaction (TRY); held by pid " + holder.pid());
				});
		}
	}

	@Test
	void sharedRequestIsBlockedOnlyByExclusiveHolders() {
		AdvisoryLockTemplate locks = template(this.dataSource, new PgLocksHolderDiagnosis(DIAGNOSIS_TIMEOUT, null));
		try (LockHolder shared = LockHolder.shared(this.dataSource, key(4));
				LockHolder exclusive = LockHolder.exclusive(this.dataSource, key(5))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> inTransaction(this.dataSource, () -> locks
					.lock(LockRequest.of(this.namespace, 4, 5).withMode(LockMode.SHARED).withWaitMode(WaitMode.TRY))))
				.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
					.containsExactly(exclusive.pid())
					.doesNotContain(shared.pid()));
		}
	}

	@Test
	void diagnosisUnderAnExhaustedPoolReturnsTheOriginalErrorPromptly() throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(TestDatabase.get().url());
		config.setUsername(TestDatabase.get().username());
		config.setPassword(TestDatabase.get().password());
		config.setMaximumPoolSize(1);
		// Longer than the hang bound: a diagnosis that waited for this pool would fail
		// the test.
		config.setConnectionTimeout(TimeUnit.SECONDS.toMillis(HANG_SECONDS * 4));
		try (HikariDataSource pool = new HikariDataSource(config)) {
			AdvisoryLockTemplate locks = template(pool, PgLocksHolderDiagnosis.forDataSource(pool, DIAGNOSIS_TIMEOUT));
			try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(8))) {
				Future<?> caller = this.threads.submit(() -> inTransaction(pool,
						() -> locks.lock(LockRequest.of(this.namespace, 8).withTimeout(Duration.ofMillis(200)))));
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> caller.get(HANG_SECONDS, TimeUnit.SECONDS))
					.havingCause()
					.isInstanceOfSatisfying(LockBusyException.class, (ex) -> {
						assertThat(ex.getHolders()).extracting(LockHolderInfo::pid).containsExactly(holder.pid());
						assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(200));
					});
				// The caller's transaction held the pool's only connection throughout.
				assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isOne();
			}
		}
	}

	@Test
	void failedDiagnosisNeverHidesTheOriginalError() {
		SQLException refused = new SQLException("connection refused", "08001");
		DataSource direct = new DelegatingDataSource(this.dataSource) {

			@Override
			public Connection getConnection() throws SQLException {
				throw refused;
			}

		};
		PgLocksHolderDiagnosis diagnosis = new PgLocksHolderDiagnosis(Duration.ofSeconds(1),
				new DirectConnections(direct, Duration.ofSeconds(1)));
		AdvisoryLockTemplate locks = template(this.dataSource, diagnosis);
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(9))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> inTransaction(this.dataSource,
						() -> locks.lock(LockRequest.of(this.namespace, 9).withTimeout(Duration.ofMillis(100)))))
				.satisfies((ex) -> {
					assertThat(ex.isDiagnosed()).isFalse();
					assertThat(ex.getKeys()).containsExactly(key(9));
					assertThat(((SQLException) ex.getCause()).getSQLState()).isEqualTo("55P03");
					assertThat(ex.getSuppressed()).containsExactly(refused);
					assertThat(ex).hasMessageContaining("not acquired within 100ms")
						.hasMessageContaining("holders not diagnosed: the query failed")
						.hasMessageContaining("connection refused");
				});
		}
	}

	@Test
	void aStormOfTimeoutsOpensAtMostTwoDiagnosisConnections() throws Exception {
		// Two diagnoses stall while connecting, then fail.
		StallingDataSource direct = StallingDataSource.thenFailing(this.dataSource, 2);
		PgLocksHolderDiagnosis diagnosis = new PgLocksHolderDiagnosis(Duration.ofSeconds(1),
				new DirectConnections(direct, Duration.ofSeconds(1)));
		AdvisoryLockTemplate locks = template(this.dataSource, diagnosis);
		Runnable timeout = () -> inTransaction(this.dataSource,
				() -> locks.lock(LockRequest.of(this.namespace, 11).withTimeout(Duration.ofMillis(50))));
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(11))) {
			List<Future<?>> stalled = List.of(this.threads.submit(timeout), this.threads.submit(timeout));
			assertThat(direct.awaitStalled()).isTrue();
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(timeout::run)
				.withMessageContaining("holders not diagnosed: skipped: all 2 connections outside the pool are in use");
			direct.release();
			for (Future<?> call : stalled) {
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> call.get(HANG_SECONDS, TimeUnit.SECONDS))
					.havingCause()
					.isInstanceOf(LockBusyException.class)
					.withMessageContaining("stalled connect");
			}
		}
	}

	@Test
	void timeoutWithoutADirectConnectionSourceSaysWhyItIsNotDiagnosed() {
		AdvisoryLockTemplate locks = template(this.dataSource, new PgLocksHolderDiagnosis(Duration.ofSeconds(1), null));
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key(10))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> inTransaction(this.dataSource,
						() -> locks.lock(LockRequest.of(this.namespace, 10).withTimeout(Duration.ofMillis(100)))))
				.satisfies((ex) -> assertThat(ex).hasMessageContaining("holders not diagnosed: the transaction was "
						+ "aborted by the timeout, and no connection outside the pool is configured"));
		}
	}

	@Test
	void successStaysOneRoundTripWithDiagnosisAndListeners() {
		AdvisoryLockTemplate locks = template(this.dataSource,
				PgLocksHolderDiagnosis.forDataSource(this.dataSource, Duration.ofSeconds(1)));
		locks.setListeners(List.of((namespace, scope, mode, waitMode, keys, values) -> Acquisition.IGNORED));
		try (RoundTripCounter counter = new RoundTripCounter()) {
			inTransaction(this.dataSource, () -> {
				counter.reset();
				locks.lock(LockRequest.of(this.namespace, 1, 2, 3).withTimeout(Duration.ofMillis(500)));
				assertThat(counter.roundTrips()).as("round trips to lock").isOne();
				counter.reset();
				assertThat(locks.tryLock(this.namespace, 4)).isTrue();
				assertThat(counter.roundTrips()).as("round trips to try").isOne();
			});
		}
	}

	/**
	 * A transaction on its own connection that holds a lock under a transaction-local
	 * application_name, left idle.
	 */
	private static final class NamedHolder implements AutoCloseable {

		private final Connection connection;

		private final int pid;

		NamedHolder(DataSource dataSource, String applicationName, long key) throws SQLException {
			this.connection = dataSource.getConnection();
			this.connection.setAutoCommit(false);
			try (PreparedStatement statement = this.connection.prepareStatement(
					"SELECT pg_backend_pid(), set_config('application_name', ?, true), pg_advisory_xact_lock(?)")) {
				statement.setString(1, applicationName);
				statement.setLong(2, key);
				try (ResultSet result = statement.executeQuery()) {
					result.next();
					this.pid = result.getInt(1);
				}
			}
		}

		@Override
		public void close() throws SQLException {
			this.connection.rollback();
			this.connection.close();
		}

	}

}
