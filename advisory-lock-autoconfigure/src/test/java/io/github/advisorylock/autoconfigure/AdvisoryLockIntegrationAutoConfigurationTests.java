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

import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.integration.AdvisoryLockRegistry;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link AdvisoryLockIntegrationAutoConfiguration}: a Spring Integration
 * {@code LockRegistry} on advisory locks where Spring Integration is present and the
 * application defines none, in the namespace {@code advisory-lock.integration.namespace};
 * and its lock of a key is the lock {@code @AdvisoryLocked} takes for the same key in the
 * same namespace.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockIntegrationAutoConfigurationTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockIntegrationAutoConfiguration.class))
		.withBean(DataSource.class, () -> TestDatabase.get().dataSource());

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String key = "flow-" + UUID.randomUUID();

	private boolean granted(String namespace, String key) {
		return this.pgLocks.on(AdvisoryLockKeys.of(namespace, key)).stream().anyMatch(PgLocks.AdvisoryLock::granted);
	}

	@Test
	void registryLocksTheKeyInTheSpringIntegrationNamespace() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockRegistry.class);
			AdvisoryLockRegistry registry = context.getBean(AdvisoryLockRegistry.class);
			assertThat(registry.getNamespace()).isEqualTo("spring-integration");
			Lock lock = registry.obtain(this.key);
			lock.lock();
			assertThat(granted("spring-integration", this.key)).isTrue();
			lock.unlock();
			assertThat(granted("spring-integration", this.key)).isFalse();
		});
	}

	@Test
	void namespaceIsASetting() {
		this.contextRunner.withPropertyValues("advisory-lock.integration.namespace=flows").run((context) -> {
			Lock lock = context.getBean(LockRegistry.class).obtain(this.key);
			lock.lock();
			assertThat(granted("flows", this.key)).isTrue();
			lock.unlock();
		});
	}

	@Test
	void registryOfTheApplicationWins() {
		DefaultLockRegistry own = new DefaultLockRegistry();
		this.contextRunner.withBean("jdbcLockRegistry", LockRegistry.class, () -> own)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(AdvisoryLockRegistry.class)
				.getBean(LockRegistry.class)
				.isSameAs(own));
	}

	@Test
	void withoutSpringIntegrationNothingOfItIsLoaded() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.integration"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(AdvisoryLockRegistry.class));
	}

	@Test
	void withoutAdvisoryLocksThereIsNoRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockAutoConfiguration.class,
					AdvisoryLockIntegrationAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(AdvisoryLockRegistry.class));
	}

	@Test
	void theRegistrysLockAndAdvisoryLockedOnTheSameKeyExcludeEachOther() {
		this.contextRunner.withUserConfiguration(Flows.class).run((context) -> {
			Flows.Handler handler = context.getBean(Flows.Handler.class);
			Lock lock = context.getBean(LockRegistry.class).obtain(Flows.KEY);
			// While the registry's lock is held, the annotated method on its key is
			// skipped.
			lock.lock();
			try {
				assertThat(this.threads.submit(() -> runs(handler)).get(HANG_SECONDS, TimeUnit.SECONDS)).isFalse();
			}
			finally {
				lock.unlock();
			}
			// And while the annotated method runs, the registry's lock is not free.
			CountDownLatch done = new CountDownLatch(1);
			Future<?> running = this.threads.submit(() -> handler.handle(() -> TestThreads.await(done)));
			this.pgLocks.await("the lock of '" + Flows.KEY + "' held",
					(locks) -> granted(AdvisoryLockRegistry.DEFAULT_NAMESPACE, Flows.KEY));
			assertThat(lock.tryLock()).isFalse();
			done.countDown();
			running.get(HANG_SECONDS, TimeUnit.SECONDS);
			// Alone, each takes it.
			assertThat(runs(handler)).isTrue();
			assertThat(lock.tryLock()).isTrue();
			lock.unlock();
		});
	}

	private static boolean runs(Flows.Handler handler) {
		AtomicBoolean ran = new AtomicBoolean();
		handler.handle(() -> ran.set(true));
		return ran.get();
	}

	@Configuration(proxyBeanMethods = false)
	static class Flows {

		static final String KEY = "orders-flow";

		@Bean
		Handler handler() {
			return new Handler();
		}

		static class Handler {

			@AdvisoryLocked(namespace = AdvisoryLockRegistry.DEFAULT_NAMESPACE, key = "'" + KEY + "'",
					scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP)
			public void handle(Runnable body) {
				body.run();
			}

		}

	}

}
