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

import java.util.UUID;

import io.github.advisorylock.LockLostException;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Runs {@link PartnerFeedSync} on its schedule, and records each run that lost its permit
 * before it ended: the library reports such a call with a {@link LockLostException} once
 * the run has returned, so that every lost run is known to its instance, and its row gets
 * a {@code lost_at}. Another instance may have taken the permit, and run beside this one,
 * from the loss on. Off unless {@code sample.jobs.partner-sync.enabled} is {@code true}.
 */
@Component
@ConditionalOnProperty(prefix = "sample.jobs.partner-sync", name = "enabled", havingValue = "true")
public class PartnerFeedSchedule {

	private final PartnerFeedSync sync;

	private final JdbcClient jdbc;

	PartnerFeedSchedule(PartnerFeedSync sync, JdbcClient jdbc) {
		this.sync = sync;
		this.jdbc = jdbc;
	}

	/**
	 * Try one run: it syncs the feed unless as many instances run it as the job has
	 * permits, and its row records a loss of its permit. The library has logged the loss
	 * at ERROR already, so it is not thrown on to the scheduler.
	 */
	@Scheduled(fixedDelayString = "${sample.jobs.partner-sync.period:" + PartnerSyncJobProperties.DEFAULT_PERIOD + "}")
	public void syncFeed() {
		UUID run = UUID.randomUUID();
		try {
			this.sync.sync(run);
		}
		catch (LockLostException ex) {
			this.jdbc.sql("UPDATE job_runs SET lost_at = clock_timestamp() WHERE run = ?").param(run).update();
		}
	}

}
