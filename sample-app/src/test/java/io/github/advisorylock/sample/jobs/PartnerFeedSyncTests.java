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

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.sample.SampleDatabaseTests;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The partner-sync job called directly in one application, with its schedule off, while
 * other sessions hold its limit's permits as other instances' runs would: with one of its
 * two permits held elsewhere it runs, with both it skips; a run whose permit is lost
 * before it ends is recorded lost.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE,
		properties = { "sample.jobs.partner-sync.enabled=true", "sample.jobs.partner-sync.work-time=0s" })
class PartnerFeedSyncTests extends SampleDatabaseTests {

	private static final long JOB_KEY = AdvisoryLockKeys.of("job", PartnerFeedSync.JOB);

	@Autowired
	private PartnerFeedSchedule schedule;

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@Autowired
	private JdbcClient jdbc;

	@BeforeEach
	void noRunsYet() {
		this.jdbc.sql("DELETE FROM job_runs WHERE job = ?").param(PartnerFeedSync.JOB).update();
	}

	@Test
	void runsBesideAnotherInstancesRunAndSkipsWhileTwoRunElsewhere() {
		try (LockHolder first = LockHolder.exclusive(TestDatabase.get().dataSource(),
				AdvisoryLockKeys.permitSlot(JOB_KEY, 0))) {
			this.schedule.syncFeed();
			assertThat(finishedRuns()).isOne();
			try (LockHolder second = LockHolder.exclusive(TestDatabase.get().dataSource(),
					AdvisoryLockKeys.permitSlot(JOB_KEY, 1))) {
				this.schedule.syncFeed();
				assertThat(runs()).as("runs, once both permits are held elsewhere").isOne();
			}
		}
	}

	@Test
	void aRunWhoseSessionEndsAfterItsLastCheckIsRecordedLostAsWellAsFinished() throws Exception {
		Future<?> run;
		// The run's insert waits behind this table lock, holding its permit, until its
		// session is gone; no heartbeat (every 10 s) notices the loss before the run
		// ends,
		// so only the release at the call's end can.
		try (Connection blocker = TestDatabase.get().dataSource().getConnection();
				Statement statement = blocker.createStatement()) {
			blocker.setAutoCommit(false);
			statement.execute("LOCK TABLE job_runs IN SHARE MODE");
			run = this.threads.submit(() -> this.schedule.syncFeed());
			await().atMost(PgLocks.HANG_TIMEOUT).until(() -> insertsWaiting() == 1);
			List<AdvisoryLock> permits = this.pgLocks.all()
				.stream()
				.filter((lock) -> lock.key() == AdvisoryLockKeys.permitSlot(JOB_KEY, 0)
						|| lock.key() == AdvisoryLockKeys.permitSlot(JOB_KEY, 1))
				.toList();
			assertThat(permits).singleElement().satisfies((permit) -> assertThat(permit.granted()).isTrue());
			this.pgLocks.terminateHolderOf(permits.get(0).key());
			blocker.rollback();
		}
		run.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		assertThat(this.jdbc
			.sql("SELECT count(*) FROM job_runs WHERE job = ? AND finished_at IS NOT NULL "
					+ "AND lost_at >= finished_at")
			.param(PartnerFeedSync.JOB)
			.query(Long.class)
			.single()).isOne();
	}

	private long insertsWaiting() {
		return this.jdbc.sql("SELECT count(*) FROM pg_locks WHERE relation = 'job_runs'::regclass AND NOT granted")
			.query(Long.class)
			.single();
	}

	private long runs() {
		return this.jdbc.sql("SELECT count(*) FROM job_runs WHERE job = ?")
			.param(PartnerFeedSync.JOB)
			.query(Long.class)
			.single();
	}

	private long finishedRuns() {
		return this.jdbc.sql("SELECT count(*) FROM job_runs WHERE job = ? AND finished_at IS NOT NULL")
			.param(PartnerFeedSync.JOB)
			.query(Long.class)
			.single();
	}

}
