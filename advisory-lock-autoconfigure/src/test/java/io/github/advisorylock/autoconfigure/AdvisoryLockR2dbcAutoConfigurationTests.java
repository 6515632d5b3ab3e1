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

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.interceptor.AdvisoryLockBeanPostProcessor;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Tests for {@link AdvisoryLockR2dbcAutoConfiguration}: an application on R2DBC alone
 * (Spring Boot defines no DataSource where it finds a ConnectionFactory) gets the
 * reactive operations and the annotation on its {@code Mono} and {@code Flux} methods,
 * and a blocking annotated method there fails at startup naming what JDBC it lacks.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockR2dbcAutoConfigurationTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.r2dbc(),
				BootAutoConfigurations.r2dbcTransactionManager(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockR2dbcAutoConfiguration.class, AdvisoryLockPrerequisitesAutoConfiguration.class))
		.withPropertyValues(R2dbcConnectionFactories.springR2dbcPropertyValues());

	@Test
	void anR2dbcApplicationGetsTheReactiveOperationsAndTheAnnotationButNoJdbcOperations() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(R2dbcAdvisoryLockTemplate.class)
			.hasSingleBean(AdvisoryLockBeanPostProcessor.class)
			.doesNotHaveBean(AdvisoryLockOperations.class));
	}

	@Test
	void theReactiveTransactionManagerStillComesAfterTheConnectionFactoryWithTheTransactionAutoConfiguration() {
		// Spring Boot 4's R2dbcTransactionManagerAutoConfiguration is ordered only before
		// TransactionAutoConfiguration: ordering ours after the latter must not pull it
		// ahead of the ConnectionFactory, or @Transactional is silently ignored.
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.r2dbc(),
					BootAutoConfigurations.r2dbcTransactionManager(), BootAutoConfigurations.transaction(),
					AdvisoryLockAutoConfiguration.class, AdvisoryLockR2dbcAutoConfiguration.class,
					AdvisoryLockPrerequisitesAutoConfiguration.class))
			.withPropertyValues(R2dbcConnectionFactories.springR2dbcPropertyValues())
			.run((context) -> assertThat(context).hasSingleBean(ReactiveTransactionManager.class));
	}

	@Test
	void aReactiveMethodLocksInItsReactiveTransactionWithoutAnyDataSource() {
		this.contextRunner.withUserConfiguration(ReactiveService.class).run((context) -> {
			ReactiveService service = context.getBean(ReactiveService.class);
			String user = UUID.randomUUID().toString();
			List<AdvisoryLock> seen = service.locked(user).block(HANG);
			assertThat(seen).extracting(AdvisoryLock::key, AdvisoryLock::granted)
				.containsExactly(tuple(AdvisoryLockKeys.of("r2dbc_only", user), true));
		});
	}

	@Test
	void aBlockingAnnotatedMethodWithoutJdbcFailsAtStartupNamingWhatItLacks() {
		this.contextRunner.withUserConfiguration(BlockingService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(BeanCreationException.class)
				.rootCause()
				.isInstanceOf(MissingLockPrerequisiteException.class)
				.hasMessageContaining("BlockingService.run")
				.hasMessageContaining("there is no DataSource bean");
		});
	}

	@Test
	void aReactiveAnnotatedMethodWithNeitherStackFailsAtStartupNamingR2dbc() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockAutoConfiguration.class,
					AdvisoryLockR2dbcAutoConfiguration.class, AdvisoryLockPrerequisitesAutoConfiguration.class))
			.withUserConfiguration(ReactiveService.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(MissingLockPrerequisiteException.class)
					.hasMessageContaining("ReactiveService.locked")
					.hasMessageContaining("there is no R2DBC ConnectionFactory bean");
			});
	}

	@Test
	void aUsersReactiveOperationsWin() {
		this.contextRunner
			.withBean("myLocks", ReactiveAdvisoryLockOperations.class,
					() -> new R2dbcAdvisoryLockTemplate(R2dbcConnectionFactories.direct(1)))
			.run((context) -> assertThat(context).hasSingleBean(ReactiveAdvisoryLockOperations.class)
				.hasBean("myLocks"));
	}

	@Test
	void backsOffWithoutThePostgresqlR2dbcDriver() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(PostgresqlConnectionFactory.class))
			.withBean(ConnectionFactory.class, () -> R2dbcConnectionFactories.direct(1))
			.run((context) -> assertThat(context).doesNotHaveBean(ReactiveAdvisoryLockOperations.class));
	}

	@EnableTransactionManagement
	static class ReactiveService {

		private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

		@Transactional
		@AdvisoryLocked(namespace = "r2dbc_only", key = "#user")
		public Mono<List<AdvisoryLock>> locked(String user) {
			return Mono.fromCallable(() -> this.pgLocks.on(AdvisoryLockKeys.of("r2dbc_only", user)))
				.subscribeOn(Schedulers.boundedElastic());
		}

	}

	static class BlockingService {

		@AdvisoryLocked(namespace = "r2dbc_only", key = "#user")
		public void run(String user) {
		}

	}

}
