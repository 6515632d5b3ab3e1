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
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.shedlock.AdvisoryLockProvider;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link AdvisoryLockShedLockAutoConfiguration}: a ShedLock
 * {@code LockProvider} on advisory locks where ShedLock is present and the application
 * defines none, in the namespace {@code advisory-lock.shedlock.namespace}; and
 * {@code @SchedulerLock(name = "x")} through it takes the same lock as
 * {@code @AdvisoryLocked(namespace = "shedlock", key = "'x'", scope = INVOCATION,
 * waitMode = SKIP)}, each skipping while the other runs.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockShedLockAutoConfigurationTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockShedLockAutoConfiguration.class))
		.withBean(DataSource.class, () -> TestDatabase.get().dataSource());

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String name = "report-" + UUID.randomUUID();

	private boolean granted(String namespace, String name) {
		return this.pgLocks.on(AdvisoryLockKeys.of(namespace, name)).stream().anyMatch(PgLocks.AdvisoryLock::granted);
	}

	@Test
	void providerLocksTheLockNameInTheShedlockNamespace() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockProvider.class);
			AdvisoryLockProvider provider = context.getBean(AdvisoryLockProvider.class);
			assertThat(provider.getNamespace()).isEqualTo("shedlock");
			SimpleLock lock = provider.lock(config(this.name)).orElseThrow();
			assertThat(granted("shedlock", this.name)).isTrue();
			lock.unlock();
			assertThat(granted("shedlock", this.name)).isFalse();
		});
	}

	@Test
	void namespaceIsASetting() {
		this.contextRunner.withPropertyValues("advisory-lock.shedlock.namespace=jobs").run((context) -> {
			SimpleLock lock = context.getBean(LockProvider.class).lock(config(this.name)).orElseThrow();
			assertThat(granted("jobs", this.name)).isTrue();
			lock.unlock();
		});
	}

	@Test
	void providerOfTheApplicationWins() {
		LockProvider own = (configuration) -> Optional.empty();
		this.contextRunner.withBean("jdbcTemplateLockProvider", LockProvider.class, () -> own)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(AdvisoryLockProvider.class)
				.getBean(LockProvider.class)
				.isSameAs(own));
	}

	@Test
	void withoutShedLockNothingOfItIsLoaded() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("net.javacrumbs.shedlock"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(AdvisoryLockProvider.class));
	}

	@Test
	void withoutAdvisoryLocksThereIsNoProvider() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockAutoConfiguration.class,
					AdvisoryLockShedLockAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(AdvisoryLockProvider.class));
	}

	@Test
	void schedulerLockAndAdvisoryLockedOnTheSameNameExcludeEachOther() {
		this.contextRunner.withUserConfiguration(Jobs.class).run((context) -> {
			Jobs.Report report = context.getBean(Jobs.Report.class);
			// While the @SchedulerLock method runs, the annotated one on its name is
			// skipped.
			assertThat(runsWhileHeld(report::viaShedLock, report::viaAnnotation)).isFalse();
			// And the other way round.
			assertThat(runsWhileHeld(report::viaAnnotation, report::viaShedLock)).isFalse();
			// Alone, neither is skipped.
			assertThat(runs(report::viaShedLock)).isTrue();
			assertThat(runs(report::viaAnnotation)).isTrue();
		});
	}

	private static boolean runs(Consumer<Runnable> method) {
		AtomicBoolean ran = new AtomicBoolean();
		method.accept(() -> ran.set(true));
		return ran.get();
	}

	/**
	 * Run a locked method on another thread until it holds the lock, and the other on
	 * this thread meanwhile.
	 * @return whether the other one ran
	 */
	private boolean runsWhileHeld(Consumer<Runnable> holder, Consumer<Runnable> other) throws Exception {
		CountDownLatch done = new CountDownLatch(1);
		Future<Boolean> held = this.threads.submit(() -> runs((body) -> holder.accept(() -> {
			TestThreads.await(done);
			body.run();
		})));
		this.pgLocks.await("the lock of '" + Jobs.NAME + "' held",
				(locks) -> granted(AdvisoryLockProvider.DEFAULT_NAMESPACE, Jobs.NAME));
		boolean ran = runs(other);
		done.countDown();
		assertThat(held.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		return ran;
	}

	private static LockConfiguration config(String name) {
		return new LockConfiguration(ClockProvider.now(), name, Duration.ofMinutes(1), Duration.ZERO);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableSchedulerLock(defaultLockAtMostFor = "PT1M")
	static class Jobs {

		static final String NAMESPACE = "shedlock";

		static final String NAME = "report-job";

		@Bean
		Report report() {
			return new Report();
		}

		static class Report {

			@SchedulerLock(name = NAME)
			public void viaShedLock(Runnable body) {
				body.run();
			}

			@AdvisoryLocked(namespace = NAMESPACE, key = "'" + NAME + "'", scope = LockScope.INVOCATION,
					waitMode = WaitMode.SKIP)
			public void viaAnnotation(Runnable body) {
				body.run();
			}

		}

	}

}
