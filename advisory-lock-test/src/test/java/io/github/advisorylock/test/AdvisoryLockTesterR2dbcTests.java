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
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.beans.factory.ObjectProvider;
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
 * {@link AdvisoryLockTester} in an R2DBC application's test (no {@code DataSource}): the
 * tester holds its locks through the application's {@code ConnectionFactory}, and derives
 * keys with the application's own {@link LockKeyStrategy}.
 */
@SpringBootTest(classes = AdvisoryLockTesterR2dbcTests.Config.class)
@AutoConfigureAdvisoryLockTester
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockTesterR2dbcTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		R2dbcConnectionFactories.springR2dbcProperties().forEach((name, value) -> registry.add(name, () -> value));
		registry.add("advisory-lock.default-timeout", () -> "30s");
		// Longer than a test can take: only the tester can make a loss seen.
		registry.add("advisory-lock.invocation.heartbeat", () -> "10m");
	}

	@Autowired
	AdvisoryLockTester locks;

	@Autowired
	SetupRequests setupRequests;

	@Autowired
	ReportJob reportJob;

	private final String user = UUID.randomUUID().toString();

	@Test
	void keysComeFromTheApplicationsKeyStrategy(@Autowired ObjectProvider<DataSource> dataSource) {
		assertThat(dataSource.getIfAvailable()).as("a DataSource in an R2DBC application's test").isNull();
		assertThat(this.locks.key("setup_request", this.user)).isEqualTo(Config.keyOf(this.user));
	}

	@Test
	void aLockHeldFromOutsideRefusesATry() {
		try (OutsideLock held = this.locks.hold("setup_request", this.user)) {
			StepVerifier.create(this.setupRequests.tryRequest(this.user))
				.expectError(LockBusyException.class)
				.verify(HANG);
		}
		StepVerifier.create(this.setupRequests.tryRequest(this.user)).expectNext("created").verifyComplete();
		this.locks.assertNoLockLeft();
	}

	@Test
	void aBlockingCallWaitsForTheLockHeldFromOutsideUntilItIsReleased() {
		Mono<String> call;
		try (OutsideLock held = this.locks.hold("setup_request", this.user)) {
			call = this.setupRequests.request(this.user).subscribeOn(Schedulers.boundedElastic()).cache();
			call.subscribe();
			held.awaitWaiters(1);
		}
		assertThat(call.block(HANG)).isEqualTo("created");
	}

	@Test
	void callsOfALockedReactiveMethodAreSerialized() {
		ConcurrentCalls calls = this.locks.concurrentCalls(3, () -> this.setupRequests.request(this.user));
		assertThat(calls).areSerializedBy("setup_request", this.user);
		assertThat(calls.results()).containsExactly("created", "created", "created");
	}

	@Test
	void callsOfAReactiveMethodThatTriesTheLockDidNotWait() {
		ConcurrentCalls calls = this.locks.concurrentCalls(2, () -> this.setupRequests.tryRequest(this.user));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(calls).areSerializedBy("setup_request", this.user))
			.withMessageContaining("The calls did not wait")
			.withMessageContaining("threw " + LockBusyException.class.getName());
	}

	@Test
	void aJobThatLosesItsLockSeesItAtItsNextSafePoint() {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch resume = new CountDownLatch(1);
		AtomicBoolean sawLoss = new AtomicBoolean();
		CompletableFuture<String> run = this.reportJob.run(this.user, started, resume, sawLoss)
			.subscribeOn(Schedulers.boundedElastic())
			.toFuture();
		TestThreads.await(started);
		this.locks.terminateHolder("nightly_report", this.user);
		resume.countDown();
		assertThat(run).failsWithin(HANG)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		assertThat(sawLoss).isTrue();
	}

	@Test
	void noLockLeftFailsForALockHeldFromOutsideAndNotReleased() {
		this.locks.hold("setup_request", this.user);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(this.locks::assertNoLockLeft)
			.withMessageContaining("Held from outside and not released");
		StepVerifier.create(this.setupRequests.tryRequest(this.user)).expectNext("created").verifyComplete();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Config {

		/**
		 * An application's own key derivation, as one sharing locks with another system
		 * might have: the tester must lock the key the application locks.
		 */
		static long keyOf(Object value) {
			return value.toString().hashCode() * 31L;
		}

		@Bean
		LockKeyStrategy lockKeyStrategy() {
			return (namespace, value) -> keyOf(value);
		}

		@Bean
		SetupRequests setupRequests() {
			return new SetupRequests();
		}

		@Bean
		ReportJob reportJob(ReactiveAdvisoryLockOperations operations) {
			return new ReportJob(operations);
		}

	}

	static class ReportJob {

		private final ReactiveAdvisoryLockOperations operations;

		ReportJob(ReactiveAdvisoryLockOperations operations) {
			this.operations = operations;
		}

		@AdvisoryLocked(namespace = "nightly_report", key = "#day", scope = LockScope.INVOCATION)
		public Mono<String> run(String day, CountDownLatch started, CountDownLatch resume, AtomicBoolean sawLoss) {
			Mono<Boolean> lost = this.operations.checkHeld()
				.thenReturn(false)
				.onErrorResume(LockLostException.class, (ex) -> Mono.just(true));
			return Mono.fromRunnable(started::countDown)
				.then(Mono.fromRunnable(() -> TestThreads.await(resume)).subscribeOn(Schedulers.boundedElastic()))
				.then(lost)
				.doOnNext(sawLoss::set)
				.thenReturn("written");
		}

	}

	static class SetupRequests {

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#user")
		public Mono<String> request(String user) {
			return Mono.just("created");
		}

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#user", waitMode = WaitMode.TRY)
		public Mono<String> tryRequest(String user) {
			return Mono.just("created");
		}

	}

}
