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

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that the diagnosis of a busy lock reads {@code pg_locks} of the database the lock
 * was asked of, where the application has two {@link DataSource}s on two databases: a
 * holder on the second one is named.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class SeveralDataSourcesDiagnosisTests {

	/**
	 * Generous: a diagnosis that must name the holder must not time out connecting or
	 * reading on a loaded machine.
	 */
	private static final Duration DIAGNOSIS_TIMEOUT = PgLocks.HANG_TIMEOUT;

	/**
	 * A pool of two on each database; the lock template knows both, {@code first} by
	 * default.
	 */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.twoDatabases(2)
		.withLockSettings((locks) -> locks
			.setHolderDiagnosis(new PgLocksHolderDiagnosis(new DirectConnectionsRegistry(DIAGNOSIS_TIMEOUT))));

	private final DataSource first = this.fixture.dataSource("first");

	private final DataSource second = this.fixture.dataSource("second");

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	private final TransactionTemplate secondTransaction = this.fixture.transaction("second");

	private final String namespace = "several-diagnosis-" + UUID.randomUUID();

	/** The key every test holds on the second database: value 1 of the namespace. */
	private final long heldKey = AdvisoryLockKeys.of(this.namespace, 1);

	@Test
	void aTryNamesTheHolderOnTheSecondDatabase() {
		try (LockHolder holder = LockHolder.exclusive(this.second, this.heldKey)) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.secondTransaction.executeWithoutResult(
						(status) -> this.locks.lock(LockRequest.of(this.namespace, 1).withWaitMode(WaitMode.TRY))))
				.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
					.containsExactly(holder.pid()));
		}
	}

	@Test
	void aTimeoutNamesTheHolderOnTheSecondDatabaseReadOutsideItsPool() {
		try (LockHolder holder = LockHolder.exclusive(this.second, this.heldKey)) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.secondTransaction.executeWithoutResult((status) -> this.locks
					.lock(LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(100)))))
				.satisfies((ex) -> {
					assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(100));
					assertThat(ex.getHolders()).extracting(LockHolderInfo::pid).containsExactly(holder.pid());
				});
		}
	}

	@Test
	void behindARoutingDataSourceATimeoutNamesTheHolderOnTheTenantsOwnDatabase() throws Exception {
		ThreadLocal<String> tenant = new ThreadLocal<>();
		AbstractRoutingDataSource router = new AbstractRoutingDataSource() {

			@Override
			protected Object determineCurrentLookupKey() {
				return tenant.get();
			}

		};
		router.setTargetDataSources(Map.of("a", this.first, "b", this.second));
		router.afterPropertiesSet();
		try (AdvisoryLockTemplate routed = new AdvisoryLockTemplate(router)) {
			routed.setHolderDiagnosis(new PgLocksHolderDiagnosis(new DirectConnectionsRegistry(DIAGNOSIS_TIMEOUT)));
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(router));
			// Tenant a first, so that a diagnosis that kept the router's first server
			// would ask a's for b's lock.
			for (String each : List.of("a", "b")) {
				tenant.set(each);
				DataSource database = each.equals("a") ? this.first : this.second;
				try (LockHolder holder = LockHolder.exclusive(database, this.heldKey)) {
					assertThatExceptionOfType(LockBusyException.class)
						.isThrownBy(() -> transaction.executeWithoutResult((status) -> routed
							.lock(LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(100)))))
						.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
							.as("holders diagnosed for tenant %s", each)
							.containsExactly(holder.pid()));
				}
				finally {
					tenant.remove();
				}
			}
		}
	}

	@Test
	void aRoutingDataSourceWithoutCurrentTargetHasNoDirectConnections() {
		AbstractRoutingDataSource router = new AbstractRoutingDataSource() {

			@Override
			protected Object determineCurrentLookupKey() {
				return null;
			}

		};
		router.setTargetDataSources(Map.of("a", this.first));
		router.afterPropertiesSet();
		assertThat(new DirectConnectionsRegistry(Duration.ofSeconds(1)).forDataSource(router)).isNull();
		assertThat(DirectConnections.of(router, Duration.ofSeconds(1))).isNull();
	}

	@Test
	void eachDataSourceHasDirectConnectionsOfItsOwnMadeOnce() {
		DirectConnectionsRegistry registry = new DirectConnectionsRegistry(Duration.ofSeconds(2));
		DirectConnections first = registry.forDataSource(this.first);
		assertThat(first).isNotNull().isSameAs(registry.forDataSource(this.first));
		assertThat(first.getTimeout()).isEqualTo(Duration.ofSeconds(2));
		assertThat(registry.forDataSource(this.second)).isNotNull().isNotSameAs(first);
		// Not a Hikari pool: none, asked once.
		DataSource plain = new SimpleDriverDataSource();
		assertThat(registry.forDataSource(plain)).isNull();
		assertThat(registry.forDataSource(plain)).isNull();
	}

}
