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

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests, against real PostgreSQL, that {@link AdvisoryLocked @AdvisoryLocked} refuses at
 * startup a method whose work outlives the call, which the lock would not guard, and
 * keeps {@code @Async} methods, whose lock is taken on the executor's thread around the
 * whole work.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockedAsyncWorkTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	private static final String NAMESPACE = "async_setup_request";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), BootAutoConfigurations.jdbcTemplate(),
				AdvisoryLockAutoConfiguration.class))
		.withBean(DataSource.class, () -> TestDatabase.get().dataSource())
		.withPropertyValues("advisory-lock.default-timeout=30s");

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	/** The one user of every call: the rule allows one request for them. */
	private final UUID user = UUID.randomUUID();

	private final JdbcTemplate jdbc = new JdbcTemplate(TestDatabase.get().dataSource());

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@BeforeEach
	void schema() {
		this.jdbc.execute("""
				CREATE TABLE IF NOT EXISTS async_setup_requests (
				    id uuid PRIMARY KEY, user_id uuid NOT NULL)""");
	}

	private int requests(UUID userId) {
		return this.jdbc.queryForObject("SELECT count(*) FROM async_setup_requests WHERE user_id = ?", Integer.class,
				userId);
	}

	@Test
	void workHandedToAnotherThreadRunsAfterTheTransactionReleasedTheLock() {
		// What an annotated method returning CompletableFuture.supplyAsync(...) did
		// before it was refused at startup:
		// lock in the transaction, hand the check-then-insert to another thread, return,
		// commit.
		this.contextRunner.run((context) -> {
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			AdvisoryLockOperations locks = context.getBean(AdvisoryLockOperations.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			// Each check waits for the other before inserting: without the lock around
			// them, both pass.
			CyclicBarrier bothChecked = new CyclicBarrier(2);
			Runnable afterCheck = () -> {
				try {
					bothChecked.await(HANG_SECONDS, TimeUnit.SECONDS);
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			};
			CompletableFuture<Boolean> first = transaction.execute((status) -> {
				locks.lock(NAMESPACE, this.user);
				return CompletableFuture.supplyAsync(() -> checkThenInsert(jdbc, this.user, afterCheck), this.threads);
			});
			CompletableFuture<Boolean> second = transaction.execute((status) -> {
				locks.lock(NAMESPACE, this.user);
				return CompletableFuture.supplyAsync(() -> checkThenInsert(jdbc, this.user, afterCheck), this.threads);
			});
			assertThat(first.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
			assertThat(second.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
			assertThat(requests(this.user)).isEqualTo(2);
		});
	}

	@Test
	void transactionalMethodReturningSupplyAsyncFailsAtStartup() {
		this.contextRunner.withBean(SupplyAsyncSetupRequests.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContainingAll(
						"Invalid @AdvisoryLocked on " + SupplyAsyncSetupRequests.class.getName() + ".create(UUID)",
						"it returns CompletableFuture, whose work may still run after the method has returned",
						"return the value itself", "put @Async on the method",
						"take the lock inside the asynchronous work");
		});
	}

	@Test
	void futureReturnedFromAMethodDeclaredToReturnObjectFailsTheCallAndRollsItsTransactionBack() {
		this.contextRunner.withBean(DeclaredObjectSetupRequests.class).run((context) -> {
			assertThat(context).hasNotFailed();
			DeclaredObjectSetupRequests setupRequests = context.getBean(DeclaredObjectSetupRequests.class);
			assertThatIllegalStateException().isThrownBy(() -> setupRequests.create(this.user))
				.withMessageContainingAll(
						"@AdvisoryLocked " + DeclaredObjectSetupRequests.class.getName() + ".create(UUID)",
						"it returned a java.util.concurrent.CompletableFuture",
						"whose work may still run after the method has returned", "declared to return Object");
			assertThat(requests(this.user)).isZero();
		});
	}

	@Test
	void publisherReturnedFromAnInvocationScopedMethodDeclaredToReturnObjectFailsTheCall() {
		this.contextRunner.withBean(DeclaredObjectSetupRequests.class).run((context) -> {
			DeclaredObjectSetupRequests setupRequests = context.getBean(DeclaredObjectSetupRequests.class);
			assertThatIllegalStateException().isThrownBy(setupRequests::publish)
				.withMessageContainingAll(
						"@AdvisoryLocked " + DeclaredObjectSetupRequests.class.getName() + ".publish()",
						"it returned a java.util.concurrent.SubmissionPublisher");
			assertThat(setupRequests.value()).isEqualTo("a value");
		});
	}

	@Test
	void asyncMethodTakesItsTransactionAndLockOnTheExecutorThreadAroundTheWholeWork() {
		this.contextRunner.withUserConfiguration(AsyncSetupRequestsConfiguration.class).run((context) -> {
			AsyncSetupRequests setupRequests = context.getBean(AsyncSetupRequests.class);
			// The caller gets its future at once, while the first call's work sits
			// between its check and its insert.
			CompletableFuture<Boolean> first = setupRequests.create(this.user);
			assertThat(setupRequests.checked().await(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
			assertThat(first).isNotDone();
			CompletableFuture<Boolean> second = setupRequests.create(this.user);
			// The second call's work waits for the lock, held by the first call's
			// transaction on its executor thread.
			this.pgLocks.awaitWaiters(AdvisoryLockKeys.of(NAMESPACE, this.user), 1);
			setupRequests.release().countDown();
			assertThat(first.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
			assertThat(second.get(HANG_SECONDS, TimeUnit.SECONDS)).isFalse();
			assertThat(requests(this.user)).isOne();
			assertThat(setupRequests.threads()).doesNotContain(Thread.currentThread().getName());
		});
	}

	/**
	 * The rule under test: at most one request per user, checked then inserted.
	 */
	static boolean checkThenInsert(JdbcTemplate jdbc, UUID userId, Runnable afterCheck) {
		int requests = jdbc.queryForObject("SELECT count(*) FROM async_setup_requests WHERE user_id = ?", Integer.class,
				userId);
		afterCheck.run();
		if (requests > 0) {
			return false;
		}
		jdbc.update("INSERT INTO async_setup_requests (id, user_id) VALUES (?, ?)", UUID.randomUUID(), userId);
		return true;
	}

	/**
	 * The bug: the lock is released when the transaction commits, as the method returns,
	 * before the work runs.
	 */
	static class SupplyAsyncSetupRequests {

		private final JdbcTemplate jdbc;

		SupplyAsyncSetupRequests(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		@AdvisoryLocked(namespace = NAMESPACE, key = "#userId")
		public CompletableFuture<Boolean> create(UUID userId) {
			return CompletableFuture.supplyAsync(() -> checkThenInsert(this.jdbc, userId, () -> {
			}));
		}

	}

	/**
	 * A method whose declared type hides the future it returns from the startup check.
	 */
	static class DeclaredObjectSetupRequests {

		private final JdbcTemplate jdbc;

		DeclaredObjectSetupRequests(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		@AdvisoryLocked(namespace = NAMESPACE, key = "#userId")
		public Object create(UUID userId) {
			this.jdbc.update("INSERT INTO async_setup_requests (id, user_id) VALUES (?, ?)", UUID.randomUUID(), userId);
			return new CompletableFuture<Boolean>();
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "'publisher'", scope = LockScope.INVOCATION)
		public Object publish() {
			return new SubmissionPublisher<String>(Runnable::run, 1);
		}

		/** A value whose declared type is not final, of a type that outlives no call. */
		@AdvisoryLocked(namespace = NAMESPACE, key = "'value'", scope = LockScope.INVOCATION)
		public Object value() {
			return "a value";
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncSetupRequestsConfiguration {

		@Bean
		AsyncSetupRequests asyncSetupRequests(JdbcTemplate jdbc) {
			return new AsyncSetupRequests(jdbc);
		}

	}

	/**
	 * The fix the startup error suggests: {@code @Async}, so that the whole work runs
	 * inside the transaction and the lock, on the executor's thread.
	 */
	static class AsyncSetupRequests {

		private final JdbcTemplate jdbc;

		private final CountDownLatch checked = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private final Set<String> threads = ConcurrentHashMap.newKeySet();

		AsyncSetupRequests(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		// State is read through methods: fields of a class-based proxy are not the
		// target's.
		public CountDownLatch checked() {
			return this.checked;
		}

		public CountDownLatch release() {
			return this.release;
		}

		public Set<String> threads() {
			return this.threads;
		}

		@Async
		@Transactional
		@AdvisoryLocked(namespace = NAMESPACE, key = "#userId")
		public CompletableFuture<Boolean> create(UUID userId) {
			this.threads.add(Thread.currentThread().getName());
			return CompletableFuture.completedFuture(checkThenInsert(this.jdbc, userId, () -> {
				if (this.checked.getCount() > 0) {
					this.checked.countDown();
					TestThreads.await(this.release);
				}
			}));
		}

	}

}
