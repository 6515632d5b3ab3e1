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

package io.github.advisorylock.interceptor;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of a concurrency limit declared with
 * {@link AdvisoryLocked#permitsString() @AdvisoryLocked(permitsString = ...)} in a Spring
 * Boot application against real PostgreSQL: at most that many bodies run at once for one
 * key value, a call beyond them waits for a permit and runs once one frees, and a
 * {@code TRY} beyond them fails.
 */
@SpringBootTest(classes = AdvisoryLockedPermitsTests.Config.class)
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockedPermitsTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		registry.add("spring.datasource.hikari.maximum-pool-size", () -> "8");
		registry.add("spring.autoconfigure.exclude", BootAutoConfigurations::excludeR2dbc);
		registry.add("advisory-lock.default-timeout", () -> "30s");
		registry.add("app.export.permits", () -> "2");
	}

	@Autowired
	private Exports exports;

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String tenant = UUID.randomUUID().toString();

	private List<Long> slots() {
		long key = AdvisoryLockKeys.of("export", this.tenant);
		return List.of(AdvisoryLockKeys.permitSlot(key, 0), AdvisoryLockKeys.permitSlot(key, 1));
	}

	@Test
	void atMostTwoBodiesRunAtOnceAndAThirdCallRunsOnceOneEnds() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch twoRunning = new CountDownLatch(2);
		Future<?> first = this.threads.submit(() -> this.exports.export(this.tenant, twoRunning, release));
		Future<?> second = this.threads.submit(() -> this.exports.export(this.tenant, twoRunning, release));
		TestThreads.await(twoRunning);
		CountDownLatch thirdRunning = new CountDownLatch(1);
		CountDownLatch releaseThird = new CountDownLatch(0);
		Future<?> third = this.threads.submit(() -> this.exports.export(this.tenant, thirdRunning, releaseThird));
		this.pgLocks.await("the third call waiting for a permit",
				(locks) -> locks.stream().anyMatch((lock) -> !lock.granted() && slots().contains(lock.key())));
		assertThat(thirdRunning.getCount()).as("the third body, before a permit frees").isEqualTo(1);
		release.countDown();
		first.get(HANG_SECONDS, TimeUnit.SECONDS);
		second.get(HANG_SECONDS, TimeUnit.SECONDS);
		third.get(HANG_SECONDS, TimeUnit.SECONDS);
		assertThat(this.exports.mostAtOnce()).isEqualTo(2);
	}

	@Test
	void aTryBeyondThePermitsFails() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch twoRunning = new CountDownLatch(2);
		Future<?> first = this.threads.submit(() -> this.exports.export(this.tenant, twoRunning, release));
		Future<?> second = this.threads.submit(() -> this.exports.export(this.tenant, twoRunning, release));
		TestThreads.await(twoRunning);
		try {
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> this.exports.tryExport(this.tenant))
				.withMessageContaining("all 2 permits of the limit are held");
		}
		finally {
			release.countDown();
		}
		first.get(HANG_SECONDS, TimeUnit.SECONDS);
		second.get(HANG_SECONDS, TimeUnit.SECONDS);
		// Another tenant has permits of its own.
		this.exports.tryExport(UUID.randomUUID().toString());
	}

	@Test
	void anInvocationScopedJobRunsOnAtMostTwoCallersAtOnceAndAThirdSkips() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch twoRunning = new CountDownLatch(2);
		Future<Optional<String>> first = this.threads.submit(() -> this.exports.job(this.tenant, twoRunning, release));
		Future<Optional<String>> second = this.threads.submit(() -> this.exports.job(this.tenant, twoRunning, release));
		TestThreads.await(twoRunning);
		try {
			assertThat(this.exports.job(this.tenant, new CountDownLatch(1), new CountDownLatch(0)))
				.as("a third run while two hold the permits")
				.isEmpty();
		}
		finally {
			release.countDown();
		}
		assertThat(first.get(HANG_SECONDS, TimeUnit.SECONDS)).hasValue("ran");
		assertThat(second.get(HANG_SECONDS, TimeUnit.SECONDS)).hasValue("ran");
		assertThat(this.exports.mostAtOnce()).isEqualTo(2);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Config {

		@Bean
		Exports exports() {
			return new Exports();
		}

	}

	/** An export that at most {@code app.export.permits} calls run at once per tenant. */
	static class Exports {

		private final AtomicInteger running = new AtomicInteger();

		private final AtomicInteger mostAtOnce = new AtomicInteger();

		@Transactional
		@AdvisoryLocked(namespace = "export", key = "#tenant", permitsString = "${app.export.permits}")
		public void export(String tenant, CountDownLatch started, CountDownLatch release) {
			int now = this.running.incrementAndGet();
			this.mostAtOnce.accumulateAndGet(now, Math::max);
			try {
				started.countDown();
				TestThreads.await(release);
			}
			finally {
				this.running.decrementAndGet();
			}
		}

		@Transactional
		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 2, waitMode = WaitMode.TRY)
		public void tryExport(String tenant) {
		}

		/**
		 * A job each instance schedules and at most two run at once, each holding its
		 * permit for the whole run; a run that finds both held is skipped, and returns
		 * empty.
		 */
		@AdvisoryLocked(namespace = "export-job", key = "#tenant", permits = 2, scope = LockScope.INVOCATION,
				waitMode = WaitMode.SKIP)
		public Optional<String> job(String tenant, CountDownLatch started, CountDownLatch release) {
			export(tenant, started, release);
			return Optional.of("ran");
		}

		int mostAtOnce() {
			return this.mostAtOnce.get();
		}

	}

}
