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

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.sample.SampleDatabaseTests;
import io.github.advisorylock.test.LockHolder;
import io.github.advisorylock.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The partner-sync job called directly in one application, with its schedule off, while
 * other sessions hold its limit's permits as other instances' runs would: with one of its
 * two permits held elsewhere it runs, with both it skips.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE,
		properties = { "sample.jobs.partner-sync.enabled=true", "sample.jobs.partner-sync.work-time=0s" })
class PartnerFeedSyncTests extends SampleDatabaseTests {

	private static final long JOB_KEY = AdvisoryLockKeys.of("job", PartnerFeedSync.JOB);

	@Autowired
	private PartnerFeedSync sync;

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
			this.sync.sync();
			assertThat(finishedRuns()).isOne();
			try (LockHolder second = LockHolder.exclusive(TestDatabase.get().dataSource(),
					AdvisoryLockKeys.permitSlot(JOB_KEY, 1))) {
				this.sync.sync();
				assertThat(runs()).as("runs, once both permits are held elsewhere").isOne();
			}
		}
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
