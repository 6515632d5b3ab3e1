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

package io.github.advisorylock.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.TwoDatabases;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.Driver;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for invocation-scoped locks in an application whose {@link DataSource} is an
 * {@link AbstractRoutingDataSource} keyed by a thread-local tenant, over two Hikari pools
 * on two databases: each call locks in the database its tenant routes to at that call,
 * whatever tenant the first call of the instance was for.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class RoutingDataSourceTests {

	private static final String NAMESPACE = "tenant-job";

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
		.withUserConfiguration(TenantDataSources.class, TenantJob.class);

	private final String value = UUID.randomUUID().toString();

	private long key() {
		return AdvisoryLockKeys.of(NAMESPACE, this.value);
	}

	@Test
	void eachCallLocksInTheDatabaseItsTenantRoutesToNotTheOneOfTheFirstCall() {
		this.contextRunner.run((context) -> {
			TenantJob job = context.getBean(TenantJob.class);
			Seen first = Tenant.as("b", () -> job.run(this.value, () -> {
			}));
			assertThat(first.b()).containsExactly(key());
			assertThat(first.a()).isEmpty();
			Seen then = Tenant.as("a", () -> job.run(this.value, () -> {
			}));
			assertThat(then.a()).containsExactly(key());
			assertThat(then.b()).isEmpty();
		});
	}

	@Test
	void twoInstancesExcludeEachOtherForTheSameTenantWhateverTenantTheirFirstCallWasFor() {
		this.contextRunner.run((one) -> this.contextRunner.run((other) -> {
			TenantJob onOne = one.getBean(TenantJob.class);
			TenantJob onOther = other.getBean(TenantJob.class);
			// Each instance's first call is for another tenant.
			Tenant.as("b", () -> onOne.run(this.value, () -> {
			}));
			Tenant.as("a", () -> onOther.run(this.value, () -> {
			}));
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<Seen> holding = this.threads.submit(() -> Tenant.as("a", () -> onOne.run(this.value, () -> {
				entered.countDown();
				TestThreads.await(release);
			})));
			try {
				TestThreads.await(entered);
				AtomicInteger ran = new AtomicInteger();
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> Tenant.as("a", () -> onOther.run(this.value, ran::incrementAndGet)));
				assertThat(ran).hasValue(0);
			}
			finally {
				release.countDown();
			}
			Seen seen = holding.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			assertThat(seen.a()).containsExactly(key());
			assertThat(seen.b()).isEmpty();
		}));
	}

	@Test
	void aCallWhoseTenantRoutesNowhereFailsBeforeTheBodyNamingTheNamespaceAndTheWayOut() {
		this.contextRunner.run((context) -> {
			AtomicInteger ran = new AtomicInteger();
			assertThatIllegalStateException()
				.isThrownBy(() -> context.getBean(TenantJob.class).run(this.value, ran::incrementAndGet))
				.withMessageContaining("'" + NAMESPACE + "'")
				.withMessageContaining("routes")
				.withMessageContaining("@InvocationLockDataSource")
				.withMessageNotContaining("Cannot determine target DataSource for lookup key");
			assertThat(ran).hasValue(0);
		});
	}

	@Test
	void aCallRoutedToATargetThatIsNoHikariPoolFailsBeforeTheBodyNamingTheWayOut() {
		this.contextRunner.run((context) -> {
			AtomicInteger ran = new AtomicInteger();
			assertThatIllegalStateException()
				.isThrownBy(() -> Tenant.as("plain",
						() -> context.getBean(TenantJob.class).run(this.value, ran::incrementAndGet)))
				.withMessageContaining("derived from a Hikari pool only")
				.withMessageContaining("@InvocationLockDataSource");
			assertThat(ran).hasValue(0);
		});
	}

	@Test
	void anInvocationLockDataSourceDecidesTheDatabaseWhateverTheTenant() {
		this.contextRunner.withUserConfiguration(LockConnectionsInB.class).run((context) -> {
			TenantJob job = context.getBean(TenantJob.class);
			Seen forA = Tenant.as("a", () -> job.run(this.value, () -> {
			}));
			assertThat(forA.b()).containsExactly(key());
			assertThat(forA.a()).isEmpty();
			Seen forNone = job.run(this.value, () -> {
			});
			assertThat(forNone.b()).containsExactly(key());
			assertThat(forNone.a()).isEmpty();
		});
	}

	@Test
	void aNestedCallForAnotherTenantLocksInItsDatabaseAlsoForAKeyTheEnclosingCallHolds() {
		this.contextRunner.run((context) -> {
			TenantJob job = context.getBean(TenantJob.class);
			Seen[] nested = new Seen[1];
			Tenant.as("a", () -> job.run(this.value, () -> nested[0] = Tenant.as("b", () -> job.run(this.value, () -> {
			}))));
			assertThat(nested[0].a()).containsExactly(key());
			assertThat(nested[0].b()).containsExactly(key());
		});
	}

	@Test
	void withAnInvocationLockDataSourceANestedCallForAnotherTenantFindsTheKeyItsEnclosingCallHolds() {
		this.contextRunner.withUserConfiguration(LockConnectionsInB.class).run((context) -> {
			TenantJob job = context.getBean(TenantJob.class);
			Seen[] nested = new Seen[1];
			// Both calls lock in B's database, whatever their tenant: the nested one must
			// not find itself busy.
			Tenant.as("a", () -> job.run(this.value, () -> nested[0] = Tenant.as("b", () -> job.run(this.value, () -> {
			}))));
			assertThat(nested[0].b()).containsExactly(key());
			assertThat(nested[0].a()).isEmpty();
		});
	}

	@Test
	void aTransactionScopedCallForTheSameTenantAndKeyInsideRunsWithoutWaitingForTheEnclosingLock() {
		this.contextRunner.run((context) -> {
			AdvisoryLockOperations locks = context.getBean(AdvisoryLockOperations.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			boolean taken = Tenant.as("a",
					() -> locks
						.execute(invocation(),
								(handle) -> transaction.execute((status) -> locks.tryLock(NAMESPACE, this.value)))
						.value());
			assertThat(taken).isTrue();
		});
	}

	@Test
	void closingTheOperationsClosesThePoolOfEveryTenantItLockedFor() {
		this.contextRunner.run((context) -> {
			AdvisoryLockTemplate locks = context.getBean(AdvisoryLockTemplate.class);
			int inA = Tenant.as("a",
					() -> locks
						.execute(invocation(), (handle) -> holderPid(context.getBean("tenantA", DataSource.class)))
						.value());
			int inB = Tenant.as("b",
					() -> locks
						.execute(invocation(), (handle) -> holderPid(context.getBean("tenantB", DataSource.class)))
						.value());
			// Both connections wait in their pools for the next call until the pools are
			// closed.
			locks.close();
			JdbcTemplate observer = new JdbcTemplate(TestDatabase.get().dataSource());
			await().atMost(PgLocks.HANG_TIMEOUT)
				.until(() -> observer.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE pid IN (?, ?)",
						Integer.class, inA, inB) == 0);
		});
	}

	private static int holderPid(DataSource database) {
		return TwoDatabases.locksIn(database).get(0).pid();
	}

	private LockRequest invocation() {
		return LockRequest.of(NAMESPACE, this.value).withScope(LockScope.INVOCATION).withWaitMode(WaitMode.TRY);
	}

	/**
	 * The locks each database holds, seen from inside the locked method.
	 */
	record Seen(List<Long> a, List<Long> b) {

	}

	/**
	 * The tenant of the current thread, the routing key.
	 */
	static final class Tenant {

		private static final ThreadLocal<String> current = new ThreadLocal<>();

		static <T> T as(String tenant, Supplier<T> call) {
			String outer = current.get();
			current.set(tenant);
			try {
				return call.get();
			}
			finally {
				current.set(outer);
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TenantDataSources {

		@Bean(defaultCandidate = false)
		HikariDataSource tenantA() {
			return TwoDatabases.first(4);
		}

		@Bean(defaultCandidate = false)
		HikariDataSource tenantB() {
			return TwoDatabases.second(4);
		}

		@Bean
		DataSource dataSource(@Qualifier("tenantA") DataSource a, @Qualifier("tenantB") DataSource b) {
			AbstractRoutingDataSource routing = new AbstractRoutingDataSource() {

				@Override
				protected Object determineCurrentLookupKey() {
					return Tenant.current.get();
				}

			};
			routing.setTargetDataSources(Map.of("a", a, "b", b, "plain", new SimpleDriverDataSource(new Driver(),
					TestDatabase.get().url(), TestDatabase.get().username(), TestDatabase.get().password())));
			routing.afterPropertiesSet();
			return routing;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LockConnectionsInB {

		@Bean(defaultCandidate = false)
		@InvocationLockDataSource
		DataSource lockConnections() {
			return new SimpleDriverDataSource(new Driver(), TwoDatabases.secondUrl(), TestDatabase.get().username(),
					TestDatabase.get().password());
		}

	}

	static class TenantJob {

		private final DataSource a;

		private final DataSource b;

		TenantJob(@Qualifier("tenantA") DataSource a, @Qualifier("tenantB") DataSource b) {
			this.a = a;
			this.b = b;
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "#value", scope = LockScope.INVOCATION, waitMode = WaitMode.TRY)
		public Seen run(String value, Runnable body) {
			body.run();
			return new Seen(TwoDatabases.keysIn(this.a), TwoDatabases.keysIn(this.b));
		}

	}

}
