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
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the connections outside the pool that a timeout's diagnosis and the
 * {@code advisorylocks} endpoint read on: every step stays bounded whatever the pool's
 * URL says, and no more than two reads run at once.
 */
class DirectConnectionsTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/** Generous: a read that must succeed must not time out on a loaded machine. */
	private static final Duration READ_TIMEOUT = PgLocks.HANG_TIMEOUT;

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	@Test
	void boundsInThePoolsUrlAreReplacedSoThatNoReadIsUnbounded() throws SQLException {
		String url = TestDatabase.get().url();
		String unbounded = url + (url.contains("?") ? "&" : "?")
				+ "socketTimeout=0&connectTimeout=0&loginTimeout=0&ApplicationName=pool-app&tcpKeepAlive=true";
		try (HikariDataSource pool = TestDatabase.get().newDataSource(unbounded, 1)) {
			DirectConnections direct = DirectConnections.of(pool, READ_TIMEOUT);
			assertThat(direct).isNotNull();
			direct.read("advisory-lock direct test", (connection) -> {
				// pgjdbc reports its socket timeout as the network timeout: the query
				// bound plus one second of grace.
				assertThat(connection.getNetworkTimeout()).isEqualTo((int) READ_TIMEOUT.plusSeconds(1).toMillis());
				SingleConnectionDataSource single = new SingleConnectionDataSource(connection, true);
				assertThat(new JdbcTemplate(single).queryForObject("SHOW application_name", String.class))
					.isEqualTo("advisory-lock direct test");
				return null;
			});
		}
	}

	@Test
	void onlyTheReplacedParametersLeaveTheUrl() {
		assertThat(DirectConnections.withoutOverriddenParameters(
				"jdbc:postgresql://h:5432/db?socketTimeout=0&sslmode=require&ApplicationName=a&connectTimeout=9"))
			.isEqualTo("jdbc:postgresql://h:5432/db?sslmode=require");
		assertThat(DirectConnections.withoutOverriddenParameters("jdbc:postgresql://h/db?loginTimeout=0"))
			.isEqualTo("jdbc:postgresql://h/db");
		assertThat(DirectConnections.withoutOverriddenParameters("jdbc:postgresql://h/db"))
			.isEqualTo("jdbc:postgresql://h/db");
		// A parameter that only starts like a replaced one stays.
		assertThat(DirectConnections.withoutOverriddenParameters("jdbc:postgresql://h/db?socketTimeoutX=1"))
			.isEqualTo("jdbc:postgresql://h/db?socketTimeoutX=1");
	}

	@Test
	void aDataSourceThatIsNotAHikariPoolHasNoDirectConnections() {
		DataSource plain = new DelegatingDataSource(new SingleConnectionDataSource());
		assertThat(DirectConnections.of(plain, Duration.ofSeconds(1))).isNull();
	}

	@Test
	void theDiagnosisAndTheInspectorShareOneBoundAndAThirdDiagnosisIsRefusedRatherThanQueued() throws Exception {
		// Two reads stall while connecting.
		StallingDataSource stalling = StallingDataSource.thenConnecting(TestDatabase.get().dataSource(), 2);
		DirectConnections shared = new DirectConnections(stalling, Duration.ofSeconds(1));
		AdvisoryLockInspector inspector = new AdvisoryLockInspector(shared, false);
		PgLocksHolderDiagnosis diagnosis = new PgLocksHolderDiagnosis(Duration.ofSeconds(1), shared);
		Future<AdvisoryLockInspector.Snapshot> stalledRead = this.threads.submit(inspector::locks);
		Future<LockHolderDiagnosis.Diagnosis> stalledDiagnosis = this.threads.submit(() -> {
			try (Connection caller = TestDatabase.get().dataSource().getConnection()) {
				return diagnosis.afterTimeout(TestDatabase.get().dataSource(), caller, List.of(1L), LockMode.EXCLUSIVE);
			}
		});
		assertThat(stalling.awaitStalled()).isTrue();
		try (Connection caller = TestDatabase.get().dataSource().getConnection()) {
			assertThat(diagnosis.afterTimeout(TestDatabase.get().dataSource(), caller, List.of(1L), LockMode.EXCLUSIVE)
				.notDiagnosed()).isEqualTo("skipped: all 2 connections outside the pool are in use");
		}
		// A read of the endpoint waits for its turn, up to the timeout, then is refused.
		assertThatExceptionOfType(TransientDataAccessResourceException.class).isThrownBy(inspector::locks)
			.withMessage("Read advisory locks from pg_locks: another read of it held the connection outside the pool "
					+ "that serves them for 1000ms; try again");
		stalling.release();
		assertThat(stalledRead.get(HANG_SECONDS, TimeUnit.SECONDS).truncated()).isFalse();
		assertThat(stalledDiagnosis.get(HANG_SECONDS, TimeUnit.SECONDS).holders()).isEmpty();
		// The permits came back.
		assertThat(inspector.locks().truncated()).isFalse();
	}

	@Test
	void readsOfTheEndpointNeverTakeTheLastConnectionAwayFromTheDiagnosisOfABusyLock() throws Exception {
		DataSource database = TestDatabase.get().dataSource();
		// Settled: a read of the endpoint either stalls while connecting, or is refused.
		CountDownLatch settled = new CountDownLatch(DirectConnections.MAX_CONCURRENT);
		StallingEndpointReads stalling = new StallingEndpointReads(database, settled);
		AdvisoryLockInspector inspector = stalling.inspector();
		List<Future<?>> reads = IntStream.range(0, DirectConnections.MAX_CONCURRENT)
			.mapToObj((i) -> this.threads.submit(() -> {
				try {
					return inspector.locks();
				}
				catch (TransientDataAccessResourceException ex) {
					settled.countDown();
					return null;
				}
			}))
			.<Future<?>>map((read) -> read)
			.toList();
		TestThreads.await(settled);
		AdvisoryLockTemplate locks = new AdvisoryLockTemplate(database);
		locks.setHolderDiagnosis(new PgLocksHolderDiagnosis(Duration.ofSeconds(1), stalling.connections()));
		String namespace = "direct-" + UUID.randomUUID();
		long key = AdvisoryLockKeys.of(namespace, 1);
		try (LockHolder holder = LockHolder.exclusive(database, key)) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> new TransactionTemplate(new DataSourceTransactionManager(database))
					.executeWithoutResult(
							(status) -> locks.lock(LockRequest.of(namespace, 1).withTimeout(Duration.ofMillis(100)))))
				.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
					.containsExactly(holder.pid()));
		}
		finally {
			stalling.release();
		}
		for (Future<?> read : reads) {
			read.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
	}

}
