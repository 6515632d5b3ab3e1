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

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.jayway.jsonpath.JsonPath;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.actuate.KeyLabels;
import io.github.advisorylock.interceptor.AdvisoryLockBeanPostProcessor;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.pglocks.DirectConnections;
import io.github.advisorylock.pglocks.PgLocksHolderDiagnosis;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.UnconnectedDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link AdvisoryLockAutoConfiguration}: its conditions, its properties, user
 * beans backing it off, and the diagnosis of busy locks that it configures.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class));

	/** The test database, for the tests that take locks. */
	private final ApplicationContextRunner withDataSource = this.contextRunner.withBean(DataSource.class,
			() -> TestDatabase.get().dataSource());

	/**
	 * A data source that never connects, for the tests of which beans exist: they need no
	 * server.
	 */
	private final ApplicationContextRunner withUnconnectedDataSource = this.contextRunner.withBean(DataSource.class,
			UnconnectedDataSource::new);

	/** A namespace of its own for each test, so no two tests share a key. */
	private final String namespace = "autoconfigured-" + UUID.randomUUID();

	@Test
	void providesOperationsKeyStrategyAndPostProcessor() {
		this.withUnconnectedDataSource.run((context) -> assertThat(context).hasSingleBean(AdvisoryLockTemplate.class)
			.hasSingleBean(LockKeyStrategy.class)
			.hasSingleBean(AdvisoryLockBeanPostProcessor.class)
			.hasSingleBean(AdvisoryLockProperties.class));
	}

	@Test
	void closingTheContextClosesTheTemplateAfterTheWebServersShutdownAndBeforeThePoolsClose() {
		this.withDataSource.run((context) -> {
			AdvisoryLockShutdown shutdown = context.getBean(AdvisoryLockShutdown.class);
			// Below the web server's graceful shutdown (DEFAULT_PHASE - 1024) and stop
			// (DEFAULT_PHASE - 2048): they stop first.
			assertThat(shutdown.getPhase()).isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048);
			assertThat(shutdown.isRunning()).isTrue();
			AdvisoryLockOperations locks = context.getBean(AdvisoryLockOperations.class);
			// Stopped and started again, as Spring Framework 7 pauses a cached test
			// context: the template stays open.
			context.stop();
			context.start();
			assertThat(locks
				.execute(LockRequest.of("autoconfigure", "job").withScope(LockScope.INVOCATION), (handle) -> "ran")
				.value()).isEqualTo("ran");
			context.close();
			assertThatExceptionOfType(CannotAcquireLockException.class)
				.isThrownBy(() -> locks.execute(LockRequest.of("autoconfigure", "job").withScope(LockScope.INVOCATION),
						(handle) -> null))
				.withMessageContaining("the application is shutting down");
		});
	}

	@Test
	void invocationScopedLocksTakeTheirConnectionsFromTheInvocationLockDataSourceWithinTheirBound() {
		this.withDataSource.withUserConfiguration(InvocationLockConnections.class)
			.withPropertyValues("advisory-lock.invocation.max-connections=1")
			.run((context) -> {
				// A bean that is no default candidate leaves the application's DataSource
				// the single candidate.
				assertThat(context).hasNotFailed().hasSingleBean(AdvisoryLockOperations.class);
				CountingDataSource lockConnections = context.getBean("lockConnections", CountingDataSource.class);
				AdvisoryLockOperations locks = context.getBean(AdvisoryLockOperations.class);
				LockRequest job = LockRequest.of("autoconfigure", "job").withScope(LockScope.INVOCATION);
				// The startup check took one, and gave it back.
				int atStartup = lockConnections.obtained.get();
				locks.execute(job, (handle) -> {
					assertThat(lockConnections.obtained).hasValue(atStartup + 1);
					assertThatExceptionOfType(CannotGetJdbcConnectionException.class).isThrownBy(() -> locks.execute(
							LockRequest.of("autoconfigure", "other").withScope(LockScope.INVOCATION), (other) -> null))
						.withMessageContaining("advisory-lock.invocation.max-connections");
					return null;
				});
			});
	}

	// Without a DataSource, a transaction manager or spring-jdbc the locks cannot be
	// taken. An application that uses them (an @AdvisoryLocked method,
	// AdvisoryLockOperations injected) then fails to start: LockPrerequisitesTests. One
	// that does not starts as before, with no lock beans: these tests.

	@Test
	void backsOffWithoutDataSourceWhereNothingUsesTheLocks() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(AdvisoryLockPrerequisitesAutoConfiguration.class))
			.withBean(PlatformTransactionManager.class, AdvisoryLockAutoConfigurationTests::transactionManager)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(PlatformTransactionManager.class)
				.doesNotHaveBean(AdvisoryLockOperations.class)
				.doesNotHaveBean(AdvisoryLockBeanPostProcessor.class));
	}

	@Test
	void backsOffWithoutTransactionManagerWhereNothingUsesTheLocks() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockAutoConfiguration.class,
					AdvisoryLockPrerequisitesAutoConfiguration.class))
			.withBean(DataSource.class, UnconnectedDataSource::new)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(AdvisoryLockOperations.class));
	}

	@Test
	void backsOffWithoutSpringJdbcWhereNothingUsesTheLocks() {
		this.withUnconnectedDataSource.withClassLoader(new FilteredClassLoader(DataSourceUtils.class))
			.withConfiguration(AutoConfigurations.of(AdvisoryLockPrerequisitesAutoConfiguration.class))
			.withBean(PlatformTransactionManager.class, AdvisoryLockAutoConfigurationTests::transactionManager)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(PlatformTransactionManager.class)
				.doesNotHaveBean(AdvisoryLockOperations.class));
	}

	@Test
	void appliesToTwoDataSourcesWithoutAPrimary() {
		// SeveralDataSourcesTests shows which one each lock is taken on.
		this.contextRunner.withUserConfiguration(TwoDataSources.class)
			.withBean(PlatformTransactionManager.class, AdvisoryLockAutoConfigurationTests::transactionManager)
			.run((context) -> assertThat(context).hasSingleBean(AdvisoryLockOperations.class));
	}

	@Test
	void appliesToThePrimaryOfTwoDataSources() {
		this.contextRunner.withUserConfiguration(TwoDataSources.class, PrimaryDataSource.class)
			.run((context) -> assertThat(context).hasSingleBean(AdvisoryLockOperations.class));
	}

	@Test
	void annotationDisabledKeepsTheOperationsButNotTheAnnotation() {
		this.withUnconnectedDataSource.withPropertyValues("advisory-lock.annotation.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(AdvisoryLockOperations.class)
				.doesNotHaveBean(AdvisoryLockBeanPostProcessor.class));
	}

	@Test
	void theDeprecatedOldNameStillTurnsTheAnnotationOff() {
		this.withUnconnectedDataSource.withPropertyValues("advisory-lock.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(AdvisoryLockOperations.class)
				.doesNotHaveBean(AdvisoryLockBeanPostProcessor.class));
		this.withUnconnectedDataSource.withPropertyValues("advisory-lock.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(AdvisoryLockBeanPostProcessor.class));
	}

	@Test
	void userKeyStrategyBacksOffAndIsUsed() {
		this.withDataSource.withBean(LockKeyStrategy.class, () -> (namespace, value) -> 4242L).run((context) -> {
			assertThat(context).hasSingleBean(LockKeyStrategy.class);
			inTransaction(context.getBean(PlatformTransactionManager.class), () -> {
				context.getBean(AdvisoryLockOperations.class).lock("any", "value");
				assertThat(new PgLocks(TestDatabase.get().dataSource()).on(4242L)).hasSize(1);
			});
		});
	}

	@Test
	void userOperationsBackOff() {
		AdvisoryLockOperations custom = new AdvisoryLockTemplate(new UnconnectedDataSource());
		this.withUnconnectedDataSource.withBean(AdvisoryLockOperations.class, () -> custom)
			.run((context) -> assertThat(context).hasSingleBean(AdvisoryLockOperations.class)
				.getBean(AdvisoryLockOperations.class)
				.isSameAs(custom));
	}

	@Test
	void userPostProcessorBacksOff() {
		AdvisoryLockBeanPostProcessor custom = new AdvisoryLockBeanPostProcessor(() -> null);
		this.withUnconnectedDataSource.withBean(AdvisoryLockBeanPostProcessor.class, () -> custom)
			.run((context) -> assertThat(context).getBean(AdvisoryLockBeanPostProcessor.class).isSameAs(custom));
	}

	@Test
	void defaultTimeoutPropertyIsTheTimeoutOfARequestThatGivesNone() {
		this.withDataSource.withPropertyValues("advisory-lock.default-timeout=150ms").run((context) -> {
			try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
					AdvisoryLockKeys.of("timeout", 77))) {
				AdvisoryLockOperations locks = context.getBean(AdvisoryLockOperations.class);
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> inTransaction(context.getBean(PlatformTransactionManager.class),
							() -> locks.lock("timeout", 77)))
					.satisfies((ex) -> assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(150)));
			}
		});
	}

	@Test
	void maxKeysPropertyLimitsTheDistinctKeysOfOneCall() {
		this.withDataSource.withPropertyValues("advisory-lock.max-keys=2").run((context) -> {
			AdvisoryLockOperations locks = context.getBean(AdvisoryLockOperations.class);
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> inTransaction(context.getBean(PlatformTransactionManager.class),
						() -> locks.lock("max", 1, 2, 3)))
				.withMessageContaining("more than 2 distinct keys");
		});
	}

	@Test
	void invalidPropertiesFailNamingTheProperty() {
		this.withUnconnectedDataSource.withPropertyValues("advisory-lock.default-timeout=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("advisory-lock.default-timeout must be between 1ms and"));
		this.withUnconnectedDataSource.withPropertyValues("advisory-lock.max-keys=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("advisory-lock.max-keys must be positive"));
	}

	@Test
	void postProcessorProxiesClassesUnlessTheApplicationAsksForInterfaces() {
		this.withUnconnectedDataSource
			.run((context) -> assertThat(context.getBean(AdvisoryLockBeanPostProcessor.class).isProxyTargetClass())
				.isTrue());
		this.withUnconnectedDataSource.withPropertyValues("spring.aop.proxy-target-class=false")
			.run((context) -> assertThat(context.getBean(AdvisoryLockBeanPostProcessor.class).isProxyTargetClass())
				.isFalse());
	}

	@Test
	void configurationMetadataDescribesEveryProperty() throws IOException {
		try (InputStream metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).isNotNull();
			String json = new String(metadata.readAllBytes(), StandardCharsets.UTF_8);
			assertThat(json).contains("\"advisory-lock.annotation.enabled\"", "\"advisory-lock.default-timeout\"",
					"\"advisory-lock.max-keys\"", "\"defaultValue\": \"2s\"", "\"defaultValue\": 64");
			// The old name stays, deprecated, pointing at the new one.
			assertThat(json).contains("\"advisory-lock.enabled\"",
					"\"replacement\": \"advisory-lock.annotation.enabled\"");
		}
	}

	@Test
	void configurationMetadataGivesTheDefaultsOfTheTypesThatOwnThem() throws IOException {
		// The properties give their defaults as literals, which the processor reads, as
		// Spring Boot's own do: this keeps them equal to the defaults of the types that
		// use them.
		try (InputStream metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).isNotNull();
			String json = new String(metadata.readAllBytes(), StandardCharsets.UTF_8);
			assertThat(defaultValue(json, "advisory-lock.endpoint.key-labels")).isEqualTo(KeyLabels.DEFAULT_CAPACITY);
			assertThat(DurationStyle.detectAndParse(defaultValue(json, "advisory-lock.diagnosis.timeout").toString()))
				.isEqualTo(DirectConnections.DEFAULT_TIMEOUT);
			assertThat(DurationStyle.detectAndParse(defaultValue(json, "advisory-lock.default-timeout").toString()))
				.isEqualTo(AdvisoryLockTemplate.DEFAULT_TIMEOUT);
			assertThat(defaultValue(json, "advisory-lock.max-keys")).isEqualTo(AdvisoryLockTemplate.DEFAULT_MAX_KEYS);
			assertThat(
					DurationStyle.detectAndParse(defaultValue(json, "advisory-lock.invocation.heartbeat").toString()))
				.isEqualTo(AdvisoryLockTemplate.DEFAULT_HEARTBEAT);
			assertThat(defaultValue(json, "advisory-lock.invocation.max-connections"))
				.isEqualTo(AdvisoryLockTemplate.DEFAULT_MAX_INVOCATION_CONNECTIONS);
		}
	}

	private static Object defaultValue(String json, String property) {
		List<Object> values = JsonPath.read(json, "$.properties[?(@.name == '" + property + "')].defaultValue");
		assertThat(values).as(property).hasSize(1);
		return values.get(0);
	}

	@Test
	void propertyDefaultsMatchTheTemplateDefaults() {
		AdvisoryLockProperties properties = new AdvisoryLockProperties();
		assertThat(properties.getDefaultTimeout()).isEqualTo(AdvisoryLockTemplate.DEFAULT_TIMEOUT);
		assertThat(properties.getMaxKeys()).isEqualTo(AdvisoryLockTemplate.DEFAULT_MAX_KEYS);
		assertThat(properties.isEnabled()).isTrue();
	}

	private static PlatformTransactionManager transactionManager() {
		// Manages a pool without exposing it as a DataSource bean; the tests that use it
		// run no SQL.
		return new JdbcTransactionManager(new UnconnectedDataSource());
	}

	private static void inTransaction(PlatformTransactionManager transactionManager, Runnable work) {
		new TransactionTemplate(transactionManager).executeWithoutResult((status) -> work.run());
	}

	@Configuration(proxyBeanMethods = false)
	static class InvocationLockConnections {

		@Bean(defaultCandidate = false)
		@InvocationLockDataSource
		CountingDataSource lockConnections() {
			return new CountingDataSource(TestDatabase.get().dataSource());
		}

	}

	static class CountingDataSource extends DelegatingDataSource {

		final AtomicInteger obtained = new AtomicInteger();

		CountingDataSource(DataSource target) {
			super(target);
		}

		@Override
		public Connection getConnection() throws SQLException {
			this.obtained.incrementAndGet();
			return super.getConnection();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSources {

		@Bean
		DataSource first() {
			return TestDatabase.get().dataSource();
		}

		@Bean
		DataSource second() {
			return TestDatabase.get().dataSource();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrimaryDataSource {

		@Bean
		@Primary
		DataSource primary() {
			return TestDatabase.get().dataSource();
		}

	}

	@Test
	void timeoutsNameTheirHoldersByDefault() {
		// The diagnosis connects outside the pool within 1s by default, which a loaded
		// machine can exceed: then it names no holder.
		this.withDataSource.withPropertyValues("advisory-lock.diagnosis.timeout=30s").run((context) -> {
			assertThat(context).hasSingleBean(LockHolderDiagnosis.class);
			try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
					AdvisoryLockKeys.of(this.namespace, 1))) {
				assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> lockWithin(context, 100))
					.satisfies((ex) -> assertThat(ex).hasMessageContaining("held by pid " + holder.pid()));
			}
		});
	}

	@Test
	void aLockHolderDiagnosisBeanOfTheApplicationReplacesTheDefaultOne() {
		LockHolderDiagnosis own = new LockHolderDiagnosis() {

			@Override
			public Diagnosis onConnection(Connection connection, List<Long> keys, LockMode mode) {
				return Diagnosis.notDiagnosed("asked the application's own diagnosis", null);
			}

			@Override
			public Diagnosis afterTimeout(DataSource dataSource, Connection caller, List<Long> keys, LockMode mode) {
				return Diagnosis.notDiagnosed("asked the application's own diagnosis after a timeout", null);
			}

		};
		this.withDataSource.withBean(LockHolderDiagnosis.class, () -> own).run((context) -> {
			assertThat(context).getBean(LockHolderDiagnosis.class).isSameAs(own);
			try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
					AdvisoryLockKeys.of(this.namespace, 1))) {
				assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> lockWithin(context, 100))
					.withMessageContaining("asked the application's own diagnosis after a timeout");
			}
		});
	}

	@Test
	void diagnosisCanBeTurnedOff() {
		this.withDataSource.withPropertyValues("advisory-lock.diagnosis.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LockHolderDiagnosis.class);
			try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
					AdvisoryLockKeys.of(this.namespace, 1))) {
				assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> lockWithin(context, 100))
					.satisfies((ex) -> {
						assertThat(ex.isDiagnosed()).isFalse();
						assertThat(ex).hasMessageNotContaining("held by").hasMessageNotContaining("not diagnosed");
					});
			}
		});
	}

	@Test
	void diagnosisTimeoutBindsAndMustBeAtLeastOneSecond() {
		this.withUnconnectedDataSource.withPropertyValues("advisory-lock.diagnosis.timeout=3s")
			.run((context) -> assertThat(context.getBean(PgLocksHolderDiagnosis.class).getTimeout())
				.isEqualTo(Duration.ofSeconds(3)));
		this.withUnconnectedDataSource.withPropertyValues("advisory-lock.diagnosis.timeout=500ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("advisory-lock.diagnosis.timeout must be at least 1s"));
	}

	private void lockWithin(AssertableApplicationContext context, long millis) {
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> context.getBean(AdvisoryLockOperations.class)
				.lock(LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(millis))));
	}

}
