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

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link AdvisoryLocked @AdvisoryLocked} on methods returning {@code Mono} and
 * {@code Flux}, in a Spring Boot application with both stacks against real PostgreSQL:
 * the lock is taken at subscription in the method's reactive transaction, before its
 * publisher is subscribed, and a blocking method of the same bean still locks through
 * JDBC.
 */
@Tag("reactive")
@SpringBootTest(classes = ReactiveAdvisoryLockedTests.Config.class)
@ExtendWith(NoAdvisoryLocksLeft.class)
class ReactiveAdvisoryLockedTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private static final String R2DBC_TRANSACTIONS = "connectionFactoryTransactionManager";

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		R2dbcConnectionFactories.springR2dbcProperties().forEach((name, value) -> registry.add(name, () -> value));
		registry.add("advisory-lock.default-timeout", () -> "20s");
	}

	@Autowired
	SetupRequests requests;

	@Autowired
	ReactiveAdvisoryLockOperations reactiveLocks;

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final long user = Math.abs(UUID.randomUUID().getMostSignificantBits());

	@BeforeEach
	void table() {
		new JdbcTemplate(TestDatabase.get().dataSource())
			.execute("CREATE TABLE IF NOT EXISTS reactive_setup_request (user_id bigint NOT NULL)");
	}

	@Test
	void concurrentSubscribersKeepAtMostOnePendingRequestPerUser() {
		List<Boolean> created = Flux.range(0, 8)
			.flatMap((i) -> this.requests.request(this.user).subscribeOn(Schedulers.parallel()), 8)
			.collectList()
			.block(HANG);
		assertThat(created).containsOnlyOnce(true).hasSize(8);
		assertThat(this.requests.count(this.user).block(HANG)).isEqualTo(1);
	}

	@Test
	void theRaceWithoutTheLockBreaksTheRuleAndTheLockedMethodKeepsIt() {
		// The reactive sibling of the sample's race demo: eight subscribers for one new
		// user. Unlocked, each inserts only once all eight have checked, so the race is
		// certain however slow the machine; locked, each works 50 ms between its check
		// and its insert.
		AtomicInteger toCheck = new AtomicInteger(8);
		Sinks.Empty<Void> allChecked = Sinks.empty();
		Mono<Void> afterAllChecked = Mono.defer(() -> {
			if (toCheck.decrementAndGet() == 0) {
				allChecked.tryEmitEmpty();
			}
			return allChecked.asMono();
		});
		List<Boolean> unlocked = Flux.range(0, 8)
			.flatMap((i) -> this.requests.requestUnlocked(this.user, afterAllChecked), 8)
			.collectList()
			.block(HANG);
		assertThat(unlocked).filteredOn(Boolean::booleanValue).hasSizeGreaterThan(1);
		long other = this.user + 1;
		List<Boolean> locked = Flux.range(0, 8)
			.flatMap((i) -> this.requests.requestSlowly(other), 8)
			.collectList()
			.block(HANG);
		assertThat(locked).containsOnlyOnce(true);
		assertThat(this.requests.count(other).block(HANG)).isEqualTo(1);
	}

	@Test
	void aLimitOfTwoPermitsRunsAtMostTwoBodiesAtOnceAcrossEightSubscribers() {
		// The first bodies wait until two run at once (a fact, not a delay), so both
		// permits are held while the other subscribers try; each later body holds its
		// permit 20 ms, and every subscriber gets its turn within the default timeout.
		List<Integer> done = Flux.range(0, 8)
			.flatMap((i) -> this.requests.export(this.user).subscribeOn(Schedulers.parallel()), 8)
			.collectList()
			.block(HANG);
		assertThat(done).hasSize(8);
		assertThat(this.requests.mostExportsAtOnce()).isEqualTo(2);
	}

	@Test
	void theMethodIsCalledOnlyOnceTheLockIsHeld() throws Exception {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
				AdvisoryLockKeys.of("reactive_setup_request", this.user))) {
			int before = this.requests.calls();
			CompletableFuture<Boolean> waiting = this.requests.request(this.user).toFuture();
			this.pgLocks.awaitWaiters(AdvisoryLockKeys.of("reactive_setup_request", this.user), 1);
			assertThat(this.requests.calls()).isEqualTo(before);
			holder.commit();
			assertThat(waiting.get(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(this.requests.calls()).isEqualTo(before + 1);
		}
	}

	@Test
	void skipCompletesEmptyWithoutCallingTheMethod() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
				AdvisoryLockKeys.of("reactive_setup_request", this.user))) {
			int before = this.requests.calls();
			assertThat(this.requests.requestIfFree(this.user).collectList().block(HANG)).isEmpty();
			assertThat(this.requests.calls()).isEqualTo(before);
		}
		assertThat(this.requests.requestIfFree(this.user).collectList().block(HANG)).containsExactly(true);
	}

	@Test
	void tryFailsWithLockBusyExceptionSignalled() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
				AdvisoryLockKeys.of("reactive_setup_request", this.user))) {
			Mono<Boolean> call = this.requests.requestOrFail(this.user);
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> call.block(HANG))
				.withMessageContaining("held by another transaction");
		}
	}

	@Test
	void withoutAReactiveTransactionTheRefusalNamesTheMethod() {
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.requests.withoutTransaction(this.user).block(HANG))
			.withMessageContaining("SetupRequests.withoutTransaction(long): ")
			.withMessageContaining("needs an actual reactive transaction");
	}

	@Test
	void aBlockingMethodOfTheSameBeanStillLocksThroughJdbc() {
		assertThat(this.requests.blocking(this.user)).isTrue();
	}

	@Test
	void anInvocationScopedFluxHoldsItsLockOnASessionOfItsOwnWhileItRuns() {
		long key = AdvisoryLockKeys.of("reactive_job", this.user);
		// Read inside the method's publisher: the lock ends when it completes.
		List<Integer> holders = this.requests.job(this.user).collectList().block(HANG);
		assertThat(holders).containsExactly(1, 1, 1);
		assertThat(this.pgLocks.on(key)).isEmpty();
	}

	@Test
	void theReactiveOperationsAreAutoConfigured() {
		assertThat(this.reactiveLocks.isHeld("reactive_setup_request", this.user).block(HANG)).isFalse();
	}

	static class SetupRequests {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger exporting = new AtomicInteger();

		private final AtomicInteger mostExportsAtOnce = new AtomicInteger();

		private final Sinks.Empty<Void> twoExportsAtOnce = Sinks.empty();

		private final DatabaseClient database;

		private final ReactiveAdvisoryLockOperations locks;

		private final JdbcTemplate jdbc;

		SetupRequests(DatabaseClient database, ReactiveAdvisoryLockOperations locks, JdbcTemplate jdbc) {
			this.database = database;
			this.locks = locks;
			this.jdbc = jdbc;
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = "reactive_setup_request", key = "#userId")
		public Mono<Boolean> request(long userId) {
			this.calls.incrementAndGet();
			return count(userId).flatMap((pending) -> (pending > 0) ? Mono.just(false)
					: this.database.sql("INSERT INTO reactive_setup_request VALUES ($1)")
						.bind(0, userId)
						.then()
						.thenReturn(true));
		}

		@Transactional(R2DBC_TRANSACTIONS)
		public Mono<Boolean> requestUnlocked(long userId, Mono<Void> afterCheck) {
			return checkThenInsert(userId, afterCheck);
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = "reactive_setup_request", key = "#userId")
		public Mono<Boolean> requestSlowly(long userId) {
			return checkThenInsert(userId, Mono.delay(Duration.ofMillis(50)));
		}

		private Mono<Boolean> checkThenInsert(long userId, Mono<?> afterCheck) {
			return count(userId).delayUntil((pending) -> afterCheck)
				.flatMap((pending) -> (pending > 0) ? Mono.just(false)
						: this.database.sql("INSERT INTO reactive_setup_request VALUES ($1)")
							.bind(0, userId)
							.then()
							.thenReturn(true));
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = "reactive_setup_request", key = "#userId", waitMode = WaitMode.SKIP)
		public Flux<Boolean> requestIfFree(long userId) {
			return request(userId).flux();
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = "reactive_setup_request", key = "#userId", waitMode = WaitMode.TRY)
		public Mono<Boolean> requestOrFail(long userId) {
			return request(userId);
		}

		@AdvisoryLocked(namespace = "reactive_job", key = "#userId", scope = LockScope.INVOCATION)
		public Flux<Integer> job(long userId) {
			PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());
			return Flux.range(1, 3)
				.concatMap((tick) -> Mono
					.fromCallable(() -> pgLocks.on(AdvisoryLockKeys.of("reactive_job", userId)).size())
					.subscribeOn(Schedulers.boundedElastic()));
		}

		@AdvisoryLocked(namespace = "reactive_setup_request", key = "#userId")
		public Mono<Boolean> withoutTransaction(long userId) {
			return Mono.just(true);
		}

		@Transactional("transactionManager")
		@AdvisoryLocked(namespace = "blocking_setup_request", key = "#userId")
		public boolean blocking(long userId) {
			return this.jdbc.queryForObject(
					"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' " + "AND pid = pg_backend_pid()",
					Integer.class) == 1;
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = "reactive_export", key = "#userId", permits = 2)
		public Mono<Integer> export(long userId) {
			return Mono.defer(() -> {
				int now = this.exporting.incrementAndGet();
				this.mostExportsAtOnce.accumulateAndGet(now, Math::max);
				if (now == 2) {
					this.twoExportsAtOnce.tryEmitEmpty();
				}
				// A bound, so that a limit that let only one in fails the test rather
				// than hang it.
				// The body counts itself out before it signals its end: the commit that
				// frees its permit follows that signal, and a doFinally would run only
				// after it, so a next body could start first and be counted as a third.
				return this.twoExportsAtOnce.asMono()
					.timeout(HANG, Mono.empty())
					.then(Mono.delay(Duration.ofMillis(20)))
					.then(Mono.fromCallable(() -> {
						this.exporting.decrementAndGet();
						return now;
					}));
			});
		}

		public int mostExportsAtOnce() {
			return this.mostExportsAtOnce.get();
		}

		/** How often a locked method's body ran, read through the proxy. */
		public int calls() {
			return this.calls.get();
		}

		public Mono<Long> count(long userId) {
			return this.database.sql("SELECT count(*) FROM reactive_setup_request WHERE user_id = $1")
				.bind(0, userId)
				.map((row) -> row.get(0, Long.class))
				.one();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Config {

		/**
		 * Spring Boot defines no DataSource where there is an R2DBC ConnectionFactory.
		 */
		@Bean
		DataSource dataSource() {
			return TestDatabase.get().dataSource();
		}

		@Bean
		JdbcTransactionManager transactionManager(DataSource dataSource) {
			return new JdbcTransactionManager(dataSource);
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

		@Bean
		SetupRequests setupRequests(ConnectionFactory connectionFactory, ReactiveAdvisoryLockOperations locks,
				JdbcTemplate jdbc) {
			return new SetupRequests(DatabaseClient.create(connectionFactory), locks, jdbc);
		}

	}

}
