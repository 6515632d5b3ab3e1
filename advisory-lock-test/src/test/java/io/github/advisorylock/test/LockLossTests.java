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

package io.github.advisorylock.test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

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
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link AdvisoryLockTester#terminateHolder} in a JDBC application's test, as a user
 * writes it: a job under an invocation-scoped lock loses it while it runs, and sees the
 * loss at its next safe point, long before a heartbeat would have found it.
 */
@SpringBootTest(classes = LockLossTests.Config.class)
@AutoConfigureAdvisoryLockTester
@ExtendWith(NoAdvisoryLocksLeft.class)
class LockLossTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		registry.add("spring.autoconfigure.exclude", BootAutoConfigurations::excludeR2dbc);
		// Longer than the test can take: only the tester can make the loss seen.
		registry.add("advisory-lock.invocation.heartbeat", () -> "10m");
	}

	@Autowired
	AdvisoryLockTester locks;

	@Autowired
	ReportJob job;

	@Autowired
	ReportWriter writer;

	private final ExecutorService jobs = Executors.newCachedThreadPool();

	private final String day = UUID.randomUUID().toString();

	@AfterEach
	void stopJobs() throws InterruptedException {
		this.jobs.shutdownNow();
		assertThat(this.jobs.awaitTermination(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aJobThatLosesItsLockSeesItAtItsNextSafePoint() throws InterruptedException {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch resume = new CountDownLatch(1);
		AtomicBoolean sawLoss = new AtomicBoolean();
		CompletableFuture<String> run = CompletableFuture
			.supplyAsync(() -> this.job.run(this.day, started, resume, sawLoss), this.jobs);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		int pid = this.locks.terminateHolder("nightly_report", this.day);
		resume.countDown();
		assertThat(run).failsWithin(Duration.ofSeconds(30))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		assertThat(sawLoss).as("the job saw the loss of session %d at its safe point", pid).isTrue();
	}

	@Test
	void aFencedWriteOfAJobThatLostItsLockIsRefused() {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch resume = new CountDownLatch(1);
		CompletableFuture<String> run = CompletableFuture
			.supplyAsync(() -> this.job.runFenced(this.day, started, resume), this.jobs);
		TestThreads.await(started);
		this.locks.terminateHolder("nightly_report", this.day);
		resume.countDown();
		assertThat(run).failsWithin(PgLocks.HANG_TIMEOUT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		assertThat(this.writer.written()).isZero();
	}

	@Test
	void terminatingALockNobodyHoldsFails() {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.locks.terminateHolder("nightly_report", this.day))
			.withMessageContaining("No session holds the lock of namespace 'nightly_report'");
	}

	@Test
	void aLockHeldFromOutsideIsReleasedNotTerminated() {
		try (OutsideLock held = this.locks.hold("nightly_report", this.day)) {
			assertThatIllegalStateException().isThrownBy(() -> this.locks.terminateHolder("nightly_report", this.day))
				.withMessageContaining("release it instead");
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Config {

		@Bean
		ReportWriter reportWriter() {
			return new ReportWriter();
		}

		@Bean
		ReportJob reportJob(AdvisoryLockOperations operations, ReportWriter writer) {
			return new ReportJob(operations, writer);
		}

	}

	static class ReportJob {

		private final AdvisoryLockOperations operations;

		private final ReportWriter writer;

		ReportJob(AdvisoryLockOperations operations, ReportWriter writer) {
			this.operations = operations;
			this.writer = writer;
		}

		@AdvisoryLocked(namespace = "nightly_report", key = "#day", scope = LockScope.INVOCATION)
		public String run(String day, CountDownLatch started, CountDownLatch resume, AtomicBoolean sawLoss) {
			started.countDown();
			TestThreads.await(resume);
			// The job's safe point: it stops writing once its lock is gone.
			sawLoss.set(this.operations.currentHandle().isLost());
			return "written";
		}

		@AdvisoryLocked(namespace = "nightly_report", key = "#day", scope = LockScope.INVOCATION)
		public String runFenced(String day, CountDownLatch started, CountDownLatch resume) {
			started.countDown();
			TestThreads.await(resume);
			this.writer.write(day);
			return "written";
		}

	}

	static class ReportWriter {

		private final AtomicInteger written = new AtomicInteger();

		/**
		 * A fenced write: the transaction-scoped lock of the key the enclosing job holds.
		 */
		@Transactional
		@AdvisoryLocked(namespace = "nightly_report", key = "#day")
		public void write(String day) {
			this.written.incrementAndGet();
		}

		int written() {
			return this.written.get();
		}

	}

}
