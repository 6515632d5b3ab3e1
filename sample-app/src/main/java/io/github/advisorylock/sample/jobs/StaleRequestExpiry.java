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
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Optional;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.util.StringUtils;

/**
 * A scheduled job that expires setup requests left pending longer than
 * {@code sample.jobs.expiry.max-age}: every instance schedules it, the advisory lock lets
 * one instance at a time run it, and a claim in the database lets at most one run start
 * per period.
 *
 * <p>
 * The lock is invocation-scoped: a connection of its own holds it for the whole call,
 * across the separate transactions of the run, and a call that finds it held returns at
 * once ({@code SKIP}). The lock alone would let whichever instance takes it next run
 * again right away; the claim alone would let a run start while a slow one is still
 * working. Each run is recorded in {@code job_runs}, with its start and end taken from
 * the database's clock.
 *
 * <p>
 * A run learns that its lock was lost (its connection failed a heartbeat, or no heartbeat
 * was confirmed for three of them: a cut network, a process paused that long) at
 * {@link AdvisoryLockOperations#checkHeld()}, before its update, and stops there: its run
 * stays unfinished. Its update is not fenced: a run that pauses between the check and its
 * update still updates after another instance has taken over. Here that is harmless:
 * expiring twice expires the same requests. {@link FencedBatchJob} shows fenced writes.
 */
@Component
public class StaleRequestExpiry {

	/**
	 * The job's name: its lock key in the namespace {@code job}, and its rows in the job
	 * tables.
	 */
	public static final String JOB = "expire-stale-requests";

	private static final Log logger = LogFactory.getLog(StaleRequestExpiry.class);

	/*
	 * Moves the job's claim to now() only if the last one is at least a period old; of
	 * two instances that claim at once, the second waits for the first's row lock and
	 * then sees its claim, so it gets no row back. now() and the stored claim are both
	 * the database's clock, so instances' clocks need not agree.
	 */
	private static final String CLAIM = "INSERT INTO job_claims (job, claimed_at) VALUES (?, now()) "
			+ "ON CONFLICT (job) DO UPDATE SET claimed_at = now() "
			+ "WHERE job_claims.claimed_at <= now() - ?::interval RETURNING claimed_at";

	private static final String EXPIRE = "UPDATE setup_requests SET status = 'expired' "
			+ "WHERE status = 'pending' AND created_at < now() - ?::interval";

	private final JdbcClient jdbc;

	private final AdvisoryLockOperations locks;

	private final ExpiryJobProperties properties;

	private final String instance;

	StaleRequestExpiry(JdbcClient jdbc, AdvisoryLockOperations locks, ExpiryJobProperties properties,
			@Value("${sample.instance:}") String instance) {
		this.jdbc = jdbc;
		this.locks = locks;
		this.properties = properties;
		// pid@host, as the library names this process in the application_name of its lock
		// sessions.
		this.instance = StringUtils.hasText(instance) ? instance : ManagementFactory.getRuntimeMXBean().getName();
	}

	/**
	 * Expire the stale pending requests, unless another instance runs the job now or a
	 * run already started in this period. Not {@code @Transactional}: the lock must be
	 * taken before any transaction of the run begins, and each step commits before the
	 * next, the claim so that it counts even if the run dies.
	 * @throws io.github.advisorylock.LockLostException if the lock was lost before the
	 * update
	 */
	@Scheduled(fixedDelayString = "${sample.jobs.expiry.period:" + ExpiryJobProperties.DEFAULT_PERIOD + "}")
	@AdvisoryLocked(namespace = "job", key = "'" + JOB + "'", scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP)
	public void expireStaleRequests() {
		Optional<OffsetDateTime> claimed = this.jdbc.sql(CLAIM)
			.params(JOB, interval(this.properties.period()))
			.query(OffsetDateTime.class)
			.optional();
		if (claimed.isEmpty()) {
			return;
		}
		long run = this.jdbc.sql("INSERT INTO job_runs (job, instance, claimed_at) VALUES (?, ?, ?) RETURNING id")
			.params(JOB, this.instance, claimed.get())
			.query(Long.class)
			.single();
		if (!simulateWork(this.properties.workTime())) {
			// Interrupted: the application is shutting down; the run stays unfinished.
			return;
		}
		// The safe point: after a loss, another instance may be running the job already.
		this.locks.checkHeld();
		int expired = this.jdbc.sql(EXPIRE).param(interval(this.properties.maxAge())).update();
		this.jdbc.sql("UPDATE job_runs SET finished_at = clock_timestamp() WHERE id = ?").param(run).update();
		if (expired > 0) {
			logger.info("Expired " + expired + " setup request(s) pending for more than " + this.properties.maxAge()
					+ " (run " + run + " on " + this.instance + ")");
		}
	}

	/**
	 * Return a duration as PostgreSQL {@code interval} input: ISO 8601 ({@code PT0.5S}),
	 * which it reads exactly.
	 */
	private static String interval(Duration duration) {
		return duration.toString();
	}

	private static boolean simulateWork(Duration workTime) {
		if (workTime.isZero()) {
			return true;
		}
		try {
			Thread.sleep(workTime.toMillis());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
