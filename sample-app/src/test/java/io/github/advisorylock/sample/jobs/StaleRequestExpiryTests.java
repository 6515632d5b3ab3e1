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

package io.github.advisorylock.sample.jobs;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.sample.SampleDatabaseTests;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.config.ScheduledTaskHolder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The expiry job called directly in one application, with its schedule off: what a run
 * does, the claim that allows one run per period, the skip while another session holds
 * the job's lock, and the stop at {@code checkHeld()} after the lock was lost.
 * {@code ScheduledJobMultiInstanceTests} runs it on its schedule across processes.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE,
		properties = { "sample.jobs.expiry.period=1h", "sample.jobs.expiry.work-time=1s",
				"advisory-lock.invocation.heartbeat=1s" })
@ExtendWith(OutputCaptureExtension.class)
class StaleRequestExpiryTests extends SampleDatabaseTests {

	private static final long JOB_KEY = AdvisoryLockKeys.of("job", StaleRequestExpiry.JOB);

	/** What the library logs at ERROR when a heartbeat finds the lock's session gone. */
	private static final String LOST = "(invocation scope) was lost while its work runs";

	@Autowired
	private StaleRequestExpiry expiry;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private ApplicationContext context;

	private final UUID user = UUID.randomUUID();

	@BeforeEach
	void newPeriodAndUser() {
		// Every test starts a period of its own: a period of an hour would otherwise
		// still be claimed.
		this.jdbc.sql("DELETE FROM job_runs WHERE job = ?").param(StaleRequestExpiry.JOB).update();
		this.jdbc.sql("DELETE FROM job_claims WHERE job = ?").param(StaleRequestExpiry.JOB).update();
		this.jdbc.sql("INSERT INTO users (id, plan) VALUES (?, 'pro')").param(this.user).update();
	}

	@Test
	void expiresOnlyTheRequestsPendingForLongerThanTheMaximumAge() {
		UUID stale = request("pending", "2 hours");
		UUID fresh = request("pending", "59 minutes");
		UUID completed = request("completed", "2 hours");
		this.expiry.expireStaleRequests();
		assertThat(status(stale)).isEqualTo("expired");
		assertThat(status(fresh)).isEqualTo("pending");
		assertThat(status(completed)).isEqualTo("completed");
		assertThat(runs()).singleElement().satisfies((run) -> {
			assertThat(run.claimedAt()).isBeforeOrEqualTo(run.startedAt());
			assertThat(run.finishedAt()).isNotNull().isAfter(run.startedAt());
		});
	}

	@Test
	void runsAtMostOncePerPeriod() {
		this.expiry.expireStaleRequests();
		OffsetDateTime claimed = claimedAt();
		UUID stale = request("pending", "2 hours");
		this.expiry.expireStaleRequests();
		assertThat(runs()).hasSize(1);
		assertThat(claimedAt()).isEqualTo(claimed);
		assertThat(status(stale)).as("a request that went stale after this period's run").isEqualTo("pending");
	}

	@Test
	void skipsWithoutClaimingWhileAnotherSessionHoldsTheJobsLock() {
		UUID stale = request("pending", "2 hours");
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), JOB_KEY)) {
			this.expiry.expireStaleRequests();
			assertThat(this.jdbc.sql("SELECT count(*) FROM job_claims WHERE job = ?")
				.param(StaleRequestExpiry.JOB)
				.query(Integer.class)
				.single()).as("claims of the period").isZero();
			assertThat(runs()).isEmpty();
			assertThat(status(stale)).isEqualTo("pending");
		}
		this.expiry.expireStaleRequests();
		assertThat(runs()).hasSize(1);
		assertThat(status(stale)).isEqualTo("expired");
	}

	@Test
	void stopsBeforeItsUpdateWhenItsLockWasLost(CapturedOutput output) throws Exception {
		UUID stale = request("pending", "2 hours");
		PgLocks locks = new PgLocks(TestDatabase.get().dataSource());
		CompletableFuture<Void> run;
		// The run is held before it records its start, under the lock, so that the lock
		// is lost before its work, not whenever the test gets to it: a run that got past
		// checkHeld() first would update.
		try (LockHolder runsTable = LockHolder.exclusive(TestDatabase.get().dataSource())) {
			runsTable.update("LOCK TABLE job_runs IN SHARE MODE");
			run = CompletableFuture.runAsync(this.expiry::expireStaleRequests);
			locks.await("the run waiting to record its start, under the job's lock",
					(held) -> held.stream().anyMatch((lock) -> lock.key() == JOB_KEY) && runWaitsToStart());
			// Until the backend has exited, its session still holds the lock.
			locks.terminateHolderOf(JOB_KEY);
			// Released once a heartbeat has found the session gone, so that checkHeld()
			// after the work knows it, however late the heartbeat runs.
			locks.await("a heartbeat to find the lock's session gone", (held) -> output.getAll().contains(LOST));
			runsTable.commit();
		}
		assertThat(run).failsWithin(PgLocks.HANG_TIMEOUT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		assertThat(status(stale)).isEqualTo("pending");
		assertThat(runs()).singleElement().satisfies((lost) -> assertThat(lost.finishedAt()).isNull());
	}

	@Test
	void isNotScheduledWhenJobsAreDisabled() {
		// SampleDatabaseTests sets sample.jobs.enabled=false, which every in-process test
		// relies on.
		assertThat(this.context.getBeanProvider(ScheduledTaskHolder.class).stream()).isEmpty();
	}

	/**
	 * Whether a session waits to insert into {@code job_runs}: the run, held back by the
	 * test's lock on the table.
	 */
	private boolean runWaitsToStart() {
		return this.jdbc
			.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'relation' AND relation = 'job_runs'::regclass "
					+ "AND NOT granted")
			.query(Integer.class)
			.single() > 0;
	}

	private UUID request(String status, String age) {
		UUID id = UUID.randomUUID();
		this.jdbc
			.sql("INSERT INTO setup_requests (id, user_id, status, created_at) VALUES (?, ?, ?, now() - ?::interval)")
			.params(id, this.user, status, age)
			.update();
		return id;
	}

	private String status(UUID request) {
		return this.jdbc.sql("SELECT status FROM setup_requests WHERE id = ?")
			.param(request)
			.query(String.class)
			.single();
	}

	private OffsetDateTime claimedAt() {
		return this.jdbc.sql("SELECT claimed_at FROM job_claims WHERE job = ?")
			.param(StaleRequestExpiry.JOB)
			.query(OffsetDateTime.class)
			.single();
	}

	private List<Run> runs() {
		return this.jdbc.sql("SELECT claimed_at, started_at, finished_at FROM job_runs WHERE job = ? ORDER BY id")
			.param(StaleRequestExpiry.JOB)
			.query(Run.class)
			.list();
	}

	/**
	 * A row of {@code job_runs}.
	 *
	 * @param claimedAt its claim of the period
	 * @param startedAt when it started
	 * @param finishedAt when it finished, or {@code null}
	 */
	record Run(OffsetDateTime claimedAt, OffsetDateTime startedAt, @Nullable OffsetDateTime finishedAt) {

	}

}
