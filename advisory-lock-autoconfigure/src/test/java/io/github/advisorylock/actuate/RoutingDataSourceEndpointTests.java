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

package io.github.advisorylock.actuate;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.TwoDatabases;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLockDescriptor;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLocksDescriptor;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockEndpointAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@link AdvisoryLocksEndpoint} of an application whose {@code DataSource}
 * is an {@link AbstractRoutingDataSource} over two databases, keyed by a thread-local
 * tenant: the endpoint starts whatever the router would resolve at startup, and shows
 * every target's database by its lookup key, never one tenant's as the database.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class RoutingDataSourceEndpointTests {

	// The endpoint's bound on connecting and reading is 1s by default: a new connection
	// on a loaded machine can take longer, and these tests read what it shows.
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks",
				"advisory-lock.diagnosis.timeout=30s");

	private final long key = AdvisoryLockKeys.of("routing-endpoint", UUID.randomUUID().toString());

	@Test
	void startsWithARouterWithoutDefaultTargetAndShowsTheLockOfEachTargetUnderItsLookupKey() {
		this.contextRunner.withUserConfiguration(TenantRouter.class).run((context) -> {
			assertThat(context).hasNotFailed();
			TenantRoutingDataSource router = context.getBean(TenantRoutingDataSource.class);
			try (LockHolder holder = LockHolder.exclusive(router.target("b"), this.key)) {
				AdvisoryLocksDescriptor locks = context.getBean(AdvisoryLocksEndpoint.class).advisoryLocks();
				assertThat(locks.locks()).isNull();
				assertThat(locks.targets()).containsOnlyKeys("a", "b");
				assertThat(keys(locks.targets().get("a"))).doesNotContain(this.key);
				assertThat(locks.targets().get("b").locks())
					.filteredOn((lock) -> Long.valueOf(this.key).equals(lock.key()))
					.singleElement()
					.satisfies((lock) -> assertThat(lock.pid()).isEqualTo(holder.pid()));
				// By bean name too.
				assertThat(keys(
						context.getBean(AdvisoryLocksEndpoint.class).advisoryLocksOf("dataSource").targets().get("b")))
					.contains(this.key);
			}
		});
	}

	@Test
	void aRouterBehindAProxyIsReadTargetByTargetToo() {
		this.contextRunner.withUserConfiguration(ProxiedTenantRouter.class).run((context) -> {
			assertThat(context).hasNotFailed();
			TenantRoutingDataSource router = (TenantRoutingDataSource) context
				.getBean(LazyConnectionDataSourceProxy.class)
				.getTargetDataSource();
			try (LockHolder holder = LockHolder.exclusive(router.target("b"), this.key)) {
				AdvisoryLocksDescriptor locks = context.getBean(AdvisoryLocksEndpoint.class).advisoryLocks();
				assertThat(locks.targets()).containsOnlyKeys("a", "b");
				assertThat(keys(locks.targets().get("b"))).contains(this.key);
			}
		});
	}

	@Test
	void aDefaultTargetIsNotShownAsTheDatabase() {
		this.contextRunner.withUserConfiguration(TenantRouterWithDefault.class).run((context) -> {
			TenantRoutingDataSource router = context.getBean(TenantRoutingDataSource.class);
			try (LockHolder holder = LockHolder.exclusive(router.target("b"), this.key)) {
				AdvisoryLocksDescriptor locks = context.getBean(AdvisoryLocksEndpoint.class).advisoryLocks();
				assertThat(locks.locks()).isNull();
				assertThat(locks.targets()).containsOnlyKeys("a", "b");
				assertThat(keys(locks.targets().get("b"))).contains(this.key);
			}
		});
	}

	@Test
	void aDefaultTargetThatIsNoneOfTheTargetsIsShownAsTheDefault() {
		this.contextRunner.withUserConfiguration(TenantRouterWithSeparateDefault.class).run((context) -> {
			TenantRoutingDataSource router = context.getBean(TenantRoutingDataSource.class);
			try (LockHolder holder = LockHolder.exclusive(router.getResolvedDefaultDataSource(), this.key)) {
				AdvisoryLocksDescriptor locks = context.getBean(AdvisoryLocksEndpoint.class).advisoryLocks();
				assertThat(locks.targets()).containsOnlyKeys("(default)", "a");
				assertThat(keys(locks.targets().get("(default)"))).contains(this.key);
				assertThat(keys(locks.targets().get("a"))).doesNotContain(this.key);
			}
		});
	}

	@Test
	void aTargetThatCannotBeReadSaysWhyAndTheOthersAreStillShown() {
		this.contextRunner.withUserConfiguration(TenantRouterWithUnreachableTarget.class).run((context) -> {
			TenantRoutingDataSource router = context.getBean(TenantRoutingDataSource.class);
			try (LockHolder holder = LockHolder.exclusive(router.target("a"), this.key)) {
				AdvisoryLocksDescriptor locks = context.getBean(AdvisoryLocksEndpoint.class).advisoryLocks();
				assertThat(keys(locks.targets().get("a"))).contains(this.key);
				assertThat(locks.targets().get("down")).satisfies((down) -> {
					assertThat(down.locks()).isNull();
					assertThat(down.error()).startsWith("Read advisory locks from pg_locks");
				});
			}
		});
	}

	private static List<@Nullable Long> keys(AdvisoryLocksDescriptor locks) {
		return locks.locks().stream().map(AdvisoryLockDescriptor::key).toList();
	}

	/**
	 * Routes to the database of the tenant the current thread works for.
	 */
	static final class TenantRoutingDataSource extends AbstractRoutingDataSource {

		static final ThreadLocal<String> TENANT = new ThreadLocal<>();

		private final Map<Object, Object> targets;

		TenantRoutingDataSource(Map<Object, Object> targets, @Nullable DataSource defaultTarget) {
			this.targets = targets;
			setTargetDataSources(targets);
			if (defaultTarget != null) {
				setDefaultTargetDataSource(defaultTarget);
			}
		}

		DataSource target(String tenant) {
			return (DataSource) this.targets.get(tenant);
		}

		public void close() {
			this.targets.values().forEach((target) -> ((HikariDataSource) target).close());
			if (getResolvedDefaultDataSource() instanceof HikariDataSource defaultTarget) {
				defaultTarget.close();
			}
		}

		@Override
		protected Object determineCurrentLookupKey() {
			return TENANT.get();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TenantRouter {

		@Bean
		TenantRoutingDataSource dataSource() {
			return new TenantRoutingDataSource(Map.of("a", TwoDatabases.first(2), "b", TwoDatabases.second(2)), null);
		}

	}

	/** The router behind a proxy, as read/write splitting puts it. */
	@Configuration(proxyBeanMethods = false)
	static class ProxiedTenantRouter {

		@Bean
		ClosingProxy dataSource() {
			TenantRoutingDataSource router = new TenantRoutingDataSource(
					Map.of("a", TwoDatabases.first(2), "b", TwoDatabases.second(2)), null);
			// Not a bean of its own: the application has one DataSource bean, the proxy.
			router.afterPropertiesSet();
			return new ClosingProxy(router);
		}

	}

	static final class ClosingProxy extends LazyConnectionDataSourceProxy implements AutoCloseable {

		ClosingProxy(TenantRoutingDataSource router) {
			super(router);
		}

		@Override
		public void close() {
			((TenantRoutingDataSource) obtainTargetDataSource()).close();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TenantRouterWithDefault {

		@Bean
		TenantRoutingDataSource dataSource() {
			HikariDataSource a = TwoDatabases.first(2);
			return new TenantRoutingDataSource(Map.of("a", a, "b", TwoDatabases.second(2)), a);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TenantRouterWithSeparateDefault {

		@Bean
		TenantRoutingDataSource dataSource() {
			return new TenantRoutingDataSource(Map.of("a", TwoDatabases.first(2)), TwoDatabases.second(2));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TenantRouterWithUnreachableTarget {

		@Bean
		TenantRoutingDataSource dataSource() {
			// A server that is not there: nothing listens on port 1. The pool starts
			// without connecting.
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/none");
			config.setUsername(TestDatabase.get().username());
			config.setInitializationFailTimeout(-1);
			HikariDataSource down = new HikariDataSource(config);
			return new TenantRoutingDataSource(Map.of("a", TwoDatabases.first(2), "down", down), null);
		}

	}

}
