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
package io.github.advisorylock.sample.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.sample.setup.Plan;
import io.github.advisorylock.testsupport.PgLocks;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Checks the rules while the run goes on, as often as it can: each check is one
 * statement, so one snapshot of the database, and sees what any reader could see at that
 * moment. A check that fails to run (the server is restarting) is counted, not a
 * violation.
 *
 * @author advisory-lock authors
 */
final class InvariantSampler {

	private static final Duration INTERVAL = Duration.ofMillis(200);

	/** The namespace of the report's limit ({@code PlanReportService}). */
	private static final String REPORT_NAMESPACE = "plan_report";

	/** Pending requests per user, and every user's plan. */
	private static final String PENDING = "SELECT u.id, count(r.id) FROM users u LEFT JOIN setup_requests r "
			+ "ON r.user_id = u.id AND r.status = 'pending' GROUP BY u.id";

	/**
	 * In one snapshot: the money in the accounts and withdrawn from them, the accounts
	 * below zero, and the days on which an account's withdrawals exceeded its limit.
	 */
	private static final String LEDGER = "SELECT (SELECT coalesce(sum(balance), 0) FROM accounts) "
			+ "+ (SELECT coalesce(sum(amount), 0) FROM withdrawals) AS money, "
			+ "(SELECT count(*) FROM accounts WHERE balance < 0) AS negative, "
			+ "(SELECT count(*) FROM (SELECT w.account_id FROM withdrawals w JOIN accounts a ON a.id = w.account_id "
			+ "GROUP BY w.account_id, a.daily_withdrawal_limit, date_trunc('day', w.created_at, 'UTC') "
			+ "HAVING sum(w.amount) > a.daily_withdrawal_limit) d) AS over_daily";

	/**
	 * On the standby: its advisory locks, which must stay 0 (an instance that locks on a
	 * server in recovery excludes nobody on the primary), and the sessions of anyone but
	 * the run itself, which are counted: pgjdbc connects to a server to ask whether it is
	 * the primary, and disconnects when it is not.
	 */
	private static final String STANDBY = "SELECT pg_is_in_recovery(), "
			+ "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'), "
			+ "(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
			+ "AND application_name <> '" + ChaosCluster.OBSERVER + "')";

	/**
	 * The granted advisory locks on each plan's report slots, one more slot than the
	 * limit has permits, so that a slot taken beyond the permits would show too.
	 */
	private final String reportSlots;

	/** The most report slots of one plan seen held at once. */
	private final AtomicInteger mostReportSlots = new AtomicInteger();

	/** The checks that saw some report slot held. */
	private final AtomicInteger reportSlotsSeen = new AtomicInteger();

	private final JdbcClient jdbc;

	private final HikariDataSource standby;

	private final AtomicInteger standbySamples = new AtomicInteger();

	private final AtomicInteger standbySessionsSeen = new AtomicInteger();

	private final Map<UUID, Integer> limits;

	private final long money;

	private final ClientLog log;

	private final List<String> violations = new CopyOnWriteArrayList<>();

	private final AtomicInteger samples = new AtomicInteger();

	private final AtomicInteger unreadable = new AtomicInteger();

	private volatile boolean stopped;

	private Thread thread;

	InvariantSampler(ChaosCluster cluster, ClientLog log, Map<UUID, Integer> limits, long money) {
		this.jdbc = JdbcClient.create(cluster.observer());
		this.standby = cluster.standbyObserver();
		this.log = log;
		this.limits = limits;
		this.money = money;
		this.reportSlots = reportSlotsSql();
	}

	private static String reportSlotsSql() {
		StringBuilder sql = new StringBuilder("SELECT ");
		for (Plan plan : Plan.values()) {
			long key = AdvisoryLockKeys.of(REPORT_NAMESPACE, plan.id());
			String slots = IntStream.rangeClosed(0, ChaosCluster.REPORT_PERMITS)
				.mapToObj((slot) -> Long.toString(AdvisoryLockKeys.permitSlot(key, slot)))
				.collect(Collectors.joining(", "));
			sql.append("count(*) FILTER (WHERE key IN (").append(slots).append(")), ");
		}
		return sql.append("0 FROM (SELECT ")
			.append(PgLocks.KEY_EXPRESSION)
			.append(" AS key FROM pg_locks ")
			.append("WHERE locktype = 'advisory' AND objsubid = 1 AND granted) advisory")
			.toString();
	}

	/**
	 * Start checking, in a thread of its own.
	 */
	void start() {
		this.thread = new Thread(() -> {
			while (!this.stopped) {
				sample();
				LockSupport.parkNanos(INTERVAL.toNanos());
			}
		}, "chaos-sampler");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Stop checking, after the check in progress.
	 */
	void stop() {
		this.stopped = true;
		try {
			this.thread.join(TimeUnit.SECONDS.toMillis(60));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Run every check once.
	 */
	void sample() {
		try {
			long at = this.log.now();
			this.jdbc.sql(PENDING).query((rs, row) -> {
				UUID user = rs.getObject(1, UUID.class);
				long pending = rs.getLong(2);
				Integer limit = this.limits.get(user);
				if (limit != null && pending > limit) {
					this.violations.add("at " + at + " ms user " + user + " had " + pending + " pending requests, "
							+ "over the limit of " + limit);
				}
				return null;
			}).list();
			this.jdbc.sql(LEDGER).query((rs, row) -> {
				if (rs.getLong("money") != this.money) {
					this.violations.add("at " + at + " ms the accounts and withdrawals held " + rs.getLong("money")
							+ ", not the " + this.money + " the accounts opened with");
				}
				if (rs.getLong("negative") > 0) {
					this.violations.add("at " + at + " ms " + rs.getLong("negative") + " account(s) below zero");
				}
				if (rs.getLong("over_daily") > 0) {
					this.violations.add("at " + at + " ms " + rs.getLong("over_daily")
							+ " account-day(s) over the daily withdrawal limit");
				}
				return null;
			}).list();
			this.jdbc.sql(this.reportSlots).query((rs, row) -> {
				int most = 0;
				for (Plan plan : Plan.values()) {
					int held = rs.getInt(plan.ordinal() + 1);
					most = Math.max(most, held);
					if (held > ChaosCluster.REPORT_PERMITS) {
						this.violations.add("at " + at + " ms " + held + " reports of plan " + plan.id()
								+ " held a slot of its limit at once, over its " + ChaosCluster.REPORT_PERMITS
								+ " permits");
					}
				}
				this.mostReportSlots.accumulateAndGet(most, Math::max);
				if (most > 0) {
					this.reportSlotsSeen.incrementAndGet();
				}
				return null;
			}).list();
			this.samples.incrementAndGet();
		}
		catch (RuntimeException ex) {
			this.unreadable.incrementAndGet();
		}
		sampleStandby();
	}

	/**
	 * Check that nobody holds or awaits an advisory lock on the standby, and count the
	 * checks that saw a session of anyone but the run there. A connection made before a
	 * promotion now reaches the primary: it is dropped, and the next check connects to
	 * the new standby.
	 */
	private void sampleStandby() {
		long at = this.log.now();
		try (Connection connection = this.standby.getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(STANDBY)) {
			result.next();
			if (!result.getBoolean(1)) {
				this.standby.evictConnection(connection);
				return;
			}
			if (result.getLong(2) > 0) {
				this.violations.add("at " + at + " ms the standby, a server in recovery, held " + result.getLong(2)
						+ " advisory lock(s)");
			}
			if (result.getLong(3) > 0) {
				this.standbySessionsSeen.incrementAndGet();
			}
			this.standbySamples.incrementAndGet();
		}
		catch (SQLException | RuntimeException ex) {
			// No standby now (a failover builds the next one): nothing to check.
		}
	}

	/**
	 * Return how many times the standby was checked.
	 * @return the count
	 */
	int standbySamples() {
		return this.standbySamples.get();
	}

	/**
	 * Return how many checks of the standby saw a session of an instance (or of
	 * PgBouncer) there.
	 * @return the count
	 */
	int standbySessionsSeen() {
		return this.standbySessionsSeen.get();
	}

	/**
	 * Return the most slots of one plan's report limit seen held at once.
	 * @return the count
	 */
	int mostReportSlots() {
		return this.mostReportSlots.get();
	}

	/**
	 * Return how many checks saw some slot of a report limit held.
	 * @return the count
	 */
	int reportSlotsSeen() {
		return this.reportSlotsSeen.get();
	}

	/**
	 * Return the violations seen.
	 * @return each a sentence
	 */
	List<String> violations() {
		return List.copyOf(this.violations);
	}

	/**
	 * Return how many times every check ran.
	 * @return the count
	 */
	int samples() {
		return this.samples.get();
	}

	/**
	 * Return how many times the checks could not run (the server was down).
	 * @return the count
	 */
	int unreadable() {
		return this.unreadable.get();
	}

}
