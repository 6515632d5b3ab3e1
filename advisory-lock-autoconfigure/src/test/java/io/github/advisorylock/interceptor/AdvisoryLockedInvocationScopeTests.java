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

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;
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
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Tests that an invocation-scoped {@link AdvisoryLocked @AdvisoryLocked} method holds its
 * lock outside any transaction of the method and inside an {@code @Async} hop, whatever
 * the order of the advisors and post processors, and that {@link WaitMode#SKIP} returns
 * without running the body.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockedInvocationScopeTests {

	private static final String NAMESPACE = "invocation-scope";

	private static final long KEY = AdvisoryLockKeys.of(NAMESPACE, "job");

	/**
	 * The application's pool of four, a Hikari pool from which the locks' own pool is
	 * derived.
	 */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(4);

	private final DataSource pool = this.fixture.dataSource();

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	// Heartbeats of 5s: a dead-man switch (three of them) that a loaded machine cannot
	// outlast by accident, and a lost session is still seen within one.
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), BootAutoConfigurations.jdbcTemplate(),
				AdvisoryLockAutoConfiguration.class))
		.withBean(DataSource.class, () -> this.pool)
		.withPropertyValues("advisory-lock.invocation.heartbeat=5s")
		.withUserConfiguration(Jobs.class);

	@Test
	void jobWithoutTransactionalHoldsTheLockOnAConnectionOfItsOwn() {
		this.contextRunner.run((context) -> {
			Seen seen = context.getBean(Job.class).plain();
			assertThat(seen.transactionActive()).isFalse();
			assertThat(seen.holders()).isOne();
		});
	}

	@Test
	void transactionalOnTheSameMethodRunsInsideTheLock() {
		this.contextRunner.run((context) -> assertLockOutsideTransaction(context.getBean(Job.class).transactional()));
	}

	@Test
	void transactionAdvisorWithHighestPrecedence() {
		this.contextRunner.withUserConfiguration(AdvisoryLockOrderingTests.HighestPrecedenceTransactions.class)
			.run((context) -> assertLockOutsideTransaction(context.getBean(Job.class).transactional()));
	}

	@Test
	void transactionAdvisorWithLowestPrecedence() {
		this.contextRunner.withUserConfiguration(AdvisoryLockOrderingTests.LowestPrecedenceTransactions.class)
			.run((context) -> assertLockOutsideTransaction(context.getBean(Job.class).transactional()));
	}

	private void assertLockOutsideTransaction(Seen seen) {
		// Inside the method the transaction is active; the lock is held, by a session
		// that is not the transaction's.
		assertThat(seen.transactionActive()).isTrue();
		assertThat(seen.holders()).isOne();
		assertThat(seen.holderPid()).isNotEqualTo(seen.transactionPid());
		assertThat(this.pgLocks.on(KEY)).isEmpty();
	}

	@Test
	void calledInsideATransactionThatBeganBeforeItFailsBeforeTheBody() {
		this.contextRunner.run((context) -> {
			Job job = context.getBean(Job.class);
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> context.getBean(Caller.class).inTransaction())
				.withMessageContaining("@AdvisoryLocked " + Job.class.getName() + ".plain()")
				.withMessageContaining("called inside a transaction that began before it");
			assertThat(job.runs()).isZero();
		});
	}

	@Test
	void afterCommitListenerIsToldWhyItCannotRunAnInvocationScopedMethod() {
		this.contextRunner.withUserConfiguration(AfterCommitListeners.class).run((context) -> {
			context.getBean(TransactionTemplate.class)
				.executeWithoutResult((status) -> context.publishEvent(new JobRequested()));
			JobRequestedListener listener = context.getBean(JobRequestedListener.class);
			assertThat(listener.refusal()).isInstanceOf(LockTransactionException.class)
				.hasMessageContaining("called while a transaction completes")
				.hasMessageContaining("put @Async on the listener");
			assertThat(listener.seen()).as("what the job saw, had it run").isNull();
		});
	}

	@Test
	void asyncAfterCommitListenerRunsAnInvocationScopedMethodUnderItsLock() {
		this.contextRunner.withUserConfiguration(AsyncAfterCommitListeners.class).run((context) -> {
			context.getBean(TransactionTemplate.class)
				.executeWithoutResult((status) -> context.publishEvent(new JobRequested()));
			AsyncJobRequestedListener listener = context.getBean(AsyncJobRequestedListener.class);
			await().atMost(PgLocks.HANG_TIMEOUT).until(() -> listener.seen() != null);
			assertThat(listener.seen().holders()).isOne();
			assertThat(listener.seen().transactionActive()).isFalse();
		});
	}

	@Test
	void asyncJobTakesTheLockOnTheExecutorsThreadAfterTheCallerReturned() {
		this.contextRunner.withUserConfiguration(AsyncJobs.class).run((context) -> {
			AsyncJob job = context.getBean(AsyncJob.class);
			CompletableFuture<String> result = job.run();
			// The caller got its future while the body is still held on the latch; the
			// lock is held meanwhile.
			assertThat(job.started().await(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(this.pgLocks.on(KEY)).singleElement().satisfies((lock) -> assertThat(lock.granted()).isTrue());
			job.release().countDown();
			assertThat(result.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
				.isNotEqualTo(Thread.currentThread().getName());
		});
	}

	@Test
	void skipReturnsEmptyOrNothingWithoutRunningTheBody() {
		this.contextRunner.run((context) -> {
			Job job = context.getBean(Job.class);
			try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), KEY)) {
				job.skipping();
				assertThat(job.optional()).isEmpty();
				assertThat(job.runs()).isZero();
				holder.rollback();
			}
			job.skipping();
			assertThat(job.optional()).contains("ran");
			assertThat(job.runs()).isEqualTo(2);
		});
	}

	@Test
	void workerThreadOfAnAnnotatedJobLearnsThatTheLockWasLost() {
		this.contextRunner.run((context) -> {
			FanOutJob job = context.getBean(FanOutJob.class);
			// The job returns what its worker saw; the call then reports the loss too.
			assertThatExceptionOfType(LockLostException.class).isThrownBy(job::run);
			assertThat(job.workerSaw()).isInstanceOf(LockLostException.class)
				.hasMessageContaining(NAMESPACE + ":[job] was lost");
		});
	}

	@Test
	void anAnnotatedJobWhoseSessionEndedBeforeItReturnedFailsWithLockLostException() {
		// No heartbeat notices the loss while the test runs: only the release at the
		// call's end can.
		this.contextRunner.withPropertyValues("advisory-lock.invocation.heartbeat=1h").run((context) -> {
			LosingJob job = context.getBean(LosingJob.class);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> job.returnsAfterItsSessionEnded())
				.satisfies((ex) -> assertThat(ex.getKeyValues()).containsExactly("job"));
			assertThat(job.ran()).isOne();
		});
	}

	@Test
	void anAnnotatedJobsOwnCheckedExceptionKeepsTheLossAsSuppressed() {
		this.contextRunner.withPropertyValues("advisory-lock.invocation.heartbeat=1h").run((context) -> {
			LosingJob job = context.getBean(LosingJob.class);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> job.throwsAfterItsSessionEnded())
				.withMessage("the partner's API is down")
				.satisfies(
						(ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(LockLostException.class));
		});
	}

	@Test
	void aTransactionalMethodLockedOnTheKeyOfItsEnclosingJobIsAFencedWrite() {
		// No heartbeat notices the loss while the test runs: only the fence can.
		this.contextRunner.withPropertyValues("advisory-lock.invocation.heartbeat=1h")
			.withUserConfiguration(FencedJobs.class)
			.run((context) -> {
				BatchWriter writer = context.getBean(BatchWriter.class);
				FencedJob job = context.getBean(FencedJob.class);
				assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> job.run(this.pgLocks));
				assertThat(job.secondWrite()).isInstanceOf(LockLostException.class)
					.hasMessageContaining(NAMESPACE + ":[job]");
				assertThat(writer.written()).isOne();
				assertThat(writer.fencesSeen()).isOne();
			});
	}

	@Test
	void currentHandleOutsideAnInvocationScopedLockSaysWhereToCallIt() {
		this.contextRunner.run((context) -> assertThatIllegalStateException()
			.isThrownBy(() -> context.getBean(AdvisoryLockOperations.class).currentHandle())
			.withMessageContaining("found no invocation-scoped advisory lock held by this thread"));
	}

	@Test
	void scheduledJobRunsUnderItsLock() {
		this.contextRunner.withUserConfiguration(Scheduling.class).run((context) -> {
			ScheduledJob job = context.getBean(ScheduledJob.class);
			assertThat(job.ran().await(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(job.holders()).isOne();
			// The run releases its lock after the latch: a context closed first would
			// drop its session, whose exiting backend may outlive the test.
			this.pgLocks.await("the scheduled run's lock released",
					(locks) -> locks.stream().noneMatch((lock) -> lock.key() == KEY));
		});
	}

	/**
	 * What a job saw of its lock and transaction from inside its body.
	 */
	record Seen(boolean transactionActive, int holders, int holderPid, int transactionPid) {

	}

	static Seen look(JdbcTemplate jdbc) {
		boolean active = TransactionSynchronizationManager.isActualTransactionActive();
		Integer holderPid = jdbc.queryForObject("SELECT coalesce(max(pid), 0) FROM pg_locks WHERE locktype = "
				+ "'advisory' AND granted AND " + PgLocks.KEY_EXPRESSION + " = ?", Integer.class, KEY);
		Integer holders = jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
				+ "AND " + PgLocks.KEY_EXPRESSION + " = ?", Integer.class, KEY);
		Integer pid = jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
		return new Seen(active, holders, holderPid, pid);
	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		@Bean
		Job job(JdbcTemplate jdbc) {
			return new Job(jdbc);
		}

		@Bean
		Caller caller(Job job) {
			return new Caller(job);
		}

		@Bean
		FanOutJob fanOutJob(AdvisoryLockOperations locks) {
			return new FanOutJob(locks);
		}

		@Bean
		LosingJob losingJob() {
			return new LosingJob();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AfterCommitListeners {

		@Bean
		JobRequestedListener jobRequestedListener(Job job) {
			return new JobRequestedListener(job);
		}

	}

	record JobRequested() {

	}

	/**
	 * Calls the job from an AFTER_COMMIT listener, on the committing thread, and keeps
	 * what that gave.
	 */
	static class JobRequestedListener {

		private final Job job;

		private final AtomicReference<Seen> seen = new AtomicReference<>();

		private final AtomicReference<RuntimeException> refusal = new AtomicReference<>();

		JobRequestedListener(Job job) {
			this.job = job;
		}

		@Nullable Seen seen() {
			return this.seen.get();
		}

		@Nullable RuntimeException refusal() {
			return this.refusal.get();
		}

		@TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT)
		public void on(JobRequested event) {
			try {
				this.seen.set(this.job.plain());
			}
			catch (RuntimeException ex) {
				// Spring logs and swallows what an after-completion listener throws: keep
				// it for the test.
				this.refusal.set(ex);
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncAfterCommitListeners {

		@Bean
		AsyncJobRequestedListener asyncJobRequestedListener(Job job) {
			return new AsyncJobRequestedListener(job);
		}

	}

	/**
	 * Calls the job from an AFTER_COMMIT listener on an executor's thread, as the refusal
	 * advises.
	 */
	static class AsyncJobRequestedListener {

		private final Job job;

		private final AtomicReference<Seen> seen = new AtomicReference<>();

		AsyncJobRequestedListener(Job job) {
			this.job = job;
		}

		@Nullable Seen seen() {
			return this.seen.get();
		}

		@Async
		@TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT)
		public void on(JobRequested event) {
			this.seen.set(this.job.plain());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncJobs {

		@Bean
		AsyncJob asyncJob() {
			return new AsyncJob();
		}

	}

	// Registered before the auto-configuration, so its post processor would come first on
	// equal order.
	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

		@Bean
		ScheduledJob scheduledJob(JdbcTemplate jdbc) {
			return new ScheduledJob(jdbc);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FencedJobs {

		@Bean
		BatchWriter batchWriter(JdbcTemplate jdbc) {
			return new BatchWriter(jdbc);
		}

		@Bean
		FencedJob fencedJob(BatchWriter writer) {
			return new FencedJob(writer);
		}

	}

	/**
	 * Writes a job's batches, each in a transaction locked on the job's key.
	 */
	static class BatchWriter {

		private final JdbcTemplate jdbc;

		private final AtomicInteger written = new AtomicInteger();

		private final AtomicInteger fencesSeen = new AtomicInteger();

		BatchWriter(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'")
		public void write() {
			Integer fences = this.jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
					+ "AND objsubid = 2 AND granted AND pid = pg_backend_pid() AND " + PgLocks.KEY_EXPRESSION + " = ?",
					Integer.class, KEY);
			this.fencesSeen.addAndGet((fences != null) ? fences : 0);
			this.written.incrementAndGet();
		}

		public int written() {
			return this.written.get();
		}

		public int fencesSeen() {
			return this.fencesSeen.get();
		}

	}

	/**
	 * A job that writes a batch, loses its lock (its session ended, as the server ends a
	 * paused holder's), and tries to write another.
	 */
	static class FencedJob {

		private final BatchWriter writer;

		private final AtomicReference<@Nullable Throwable> secondWrite = new AtomicReference<>();

		FencedJob(BatchWriter writer) {
			this.writer = writer;
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION)
		public void run(PgLocks pgLocks) {
			this.writer.write();
			// Until the backend has exited it still holds the marker the fence probes.
			pgLocks.terminateHolderOf(KEY);
			this.secondWrite.set(catchThrowable(this.writer::write));
		}

		/** What the write after the session ended threw. */
		public @Nullable Throwable secondWrite() {
			return this.secondWrite.get();
		}

	}

	/**
	 * A job whose lock's session ends just before the body returns, so that only the
	 * release at the call's end can find the loss.
	 */
	static class LosingJob {

		private final AtomicInteger ran = new AtomicInteger();

		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION)
		public String returnsAfterItsSessionEnded() {
			new PgLocks(TestDatabase.get().dataSource()).terminateHolderOf(KEY);
			this.ran.incrementAndGet();
			return "done";
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION)
		public String throwsAfterItsSessionEnded() throws IOException {
			new PgLocks(TestDatabase.get().dataSource()).terminateHolderOf(KEY);
			throw new IOException("the partner's API is down");
		}

		public int ran() {
			return this.ran.get();
		}

	}

	static class Job {

		private final JdbcTemplate jdbc;

		final AtomicInteger runs = new AtomicInteger();

		Job(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		// Fields of a class-based proxy are its own, not the target's: read them through
		// a method.
		public int runs() {
			return this.runs.get();
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION)
		public Seen plain() {
			this.runs.incrementAndGet();
			return look(this.jdbc);
		}

		@Transactional
		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION)
		public Seen transactional() {
			return look(this.jdbc);
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP)
		public void skipping() {
			this.runs.incrementAndGet();
		}

		@Transactional
		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", waitMode = WaitMode.SKIP)
		public Optional<String> optional() {
			this.runs.incrementAndGet();
			return Optional.of("ran");
		}

	}

	/**
	 * A job that hands its work to a thread of its own, which checks the lock at its safe
	 * points.
	 */
	static class FanOutJob {

		private final AdvisoryLockOperations locks;

		FanOutJob(AdvisoryLockOperations locks) {
			this.locks = locks;
		}

		private final AtomicReference<@Nullable Throwable> workerSaw = new AtomicReference<>();

		/**
		 * Run the work on a worker thread, end the lock's session while it runs, and keep
		 * what the worker's check threw once the loss was seen.
		 */
		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION)
		public void run() throws Exception {
			LockHandle handle = this.locks.currentHandle();
			ExecutorService worker = Executors.newSingleThreadExecutor();
			try {
				this.workerSaw.set(worker.submit(() -> {
					handle.checkHeld();
					// Gone, not just signalled: its lock is free when the test ends.
					new PgLocks(TestDatabase.get().dataSource()).terminateHolderOf(KEY);
					await().atMost(PgLocks.HANG_TIMEOUT).until(handle::isLost);
					// The operations answer for the calling thread, which holds no lock
					// of its own.
					this.locks.checkHeld();
					return catchThrowable(handle::checkHeld);
				}).get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
			}
			finally {
				worker.shutdownNow();
			}
		}

		public @Nullable Throwable workerSaw() {
			return this.workerSaw.get();
		}

	}

	static class Caller {

		private final Job job;

		Caller(Job job) {
			this.job = job;
		}

		@Transactional
		public Seen inTransaction() {
			return this.job.plain();
		}

	}

	static class AsyncJob {

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		public CountDownLatch started() {
			return this.started;
		}

		public CountDownLatch release() {
			return this.release;
		}

		@Async
		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION)
		public CompletableFuture<String> run() throws InterruptedException {
			this.started.countDown();
			assertThat(this.release.await(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			return CompletableFuture.completedFuture(Thread.currentThread().getName());
		}

	}

	static class ScheduledJob {

		private final JdbcTemplate jdbc;

		final CountDownLatch ran = new CountDownLatch(1);

		final AtomicReference<Integer> holders = new AtomicReference<>();

		ScheduledJob(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		public CountDownLatch ran() {
			return this.ran;
		}

		public Integer holders() {
			return this.holders.get();
		}

		@Scheduled(fixedDelay = 60_000)
		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP)
		public void run() {
			if (this.ran.getCount() > 0) {
				this.holders.set(look(this.jdbc).holders());
				this.ran.countDown();
			}
		}

	}

}
