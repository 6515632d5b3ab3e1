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

import java.lang.management.ManagementFactory;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.util.StringUtils;

/**
 * A job that syncs a partner's feed through its API, which serves at most two clients at
 * once: every instance schedules it ({@link PartnerFeedSchedule}), and a concurrency
 * limit lets at most {@code sample.jobs.partner-sync.permits} (2) instances run it at
 * once, across the cluster. A run that finds every permit held skips. Off unless
 * {@code sample.jobs.partner-sync.enabled} is {@code true}.
 *
 * <p>
 * The limit is invocation-scoped, as {@link StaleRequestExpiry}'s lock is: the run's own
 * session holds one permit for the whole run, across its transactions, and loses it with
 * that session. The call to the partner is simulated ({@code work-time}). Each run is a
 * row of {@code job_runs}, its claim being its start, with no claim per period: several
 * runs at once are the point here.
 */
@Component
@ConditionalOnProperty(prefix = "sample.jobs.partner-sync", name = "enabled", havingValue = "true")
public class PartnerFeedSync {

	/**
	 * The job's name: its limit's key in the namespace {@code job}, and its rows in
	 * {@code job_runs}.
	 */
	public static final String JOB = "sync-partner-feed";

	private final JdbcClient jdbc;

	private final AdvisoryLockOperations locks;

	private final PartnerSyncJobProperties properties;

	private final String instance;

	PartnerFeedSync(JdbcClient jdbc, AdvisoryLockOperations locks, PartnerSyncJobProperties properties,
			@Value("${sample.instance:}") String instance) {
		this.jdbc = jdbc;
		this.locks = locks;
		this.properties = properties;
		this.instance = StringUtils.hasText(instance) ? instance : ManagementFactory.getRuntimeMXBean().getName();
	}

	/**
	 * Sync the feed, unless as many instances run the job now as it has permits. Not
	 * {@code @Transactional}: the permit must be held before the run's transactions
	 * begin.
	 * @param run the run's id, chosen by its caller, so that the caller can record a loss
	 * the call reports after the run's row was written
	 * @throws io.github.advisorylock.LockLostException if the permit was lost before the
	 * call ended: at the safe point the run stays unfinished, after it the run finished
	 * but another instance may have run beside it
	 */
	@AdvisoryLocked(namespace = "job", key = "'" + JOB + "'", scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP,
			permitsString = "${sample.jobs.partner-sync.permits:2}")
	public void sync(UUID run) {
		this.jdbc.sql("INSERT INTO job_runs (job, instance, run, claimed_at) VALUES (?, ?, ?, clock_timestamp())")
			.params(JOB, this.instance, run)
			.update();
		try {
			Thread.sleep(this.properties.workTime().toMillis());
		}
		catch (InterruptedException ex) {
			// The application is shutting down: the run stays unfinished.
			Thread.currentThread().interrupt();
			return;
		}
		// The safe point: after a loss, another instance may hold the permit already.
		this.locks.checkHeld();
		this.jdbc.sql("UPDATE job_runs SET finished_at = clock_timestamp() WHERE run = ?").param(run).update();
	}

}
