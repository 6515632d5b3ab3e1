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

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.sample.SampleInstance;
import io.github.advisorylock.sample.jobs.FencedBatchJob;
import io.github.advisorylock.sample.jobs.PartnerFeedSync;
import io.github.advisorylock.sample.jobs.StaleRequestExpiry;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PostgresPair;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The checks after a chaos run, with SQL against the client's own log of answers: no rule
 * broken, no acknowledged write lost, no write kept that the client saw rejected, no two
 * runs of the job overlapping but after a loss the job reported, no more runs of the
 * limited job at once than its permits but those a known loss explains, no batch of the
 * fenced job committed after a newer run's first, no batch an instance logged as
 * committed missing, no advisory lock left, and every error inside a fault's window.
 *
 * @author advisory-lock authors
 */
final class ChaosChecker {

	/** What the library logs at ERROR when a heartbeat finds the lock's session gone. */
	static final String LOST = "(invocation scope) was lost while its work runs";

	/**
	 * What it logs at ERROR when the session is found gone only at the release, after the
	 * work returned (the call then throws {@code LockLostException}).
	 */
	static final String ROLLBACK_FAILED = "rolling back its transaction failed";

	/**
	 * What PostgreSQL says when the lock order failed (a deadlock) or a rule reached the
	 * last line of defence (a {@code CHECK}, such as a balance below zero).
	 */
	private static final List<String> RULE_BROKEN = List.of("deadlock detected", "violates check constraint");

	/**
	 * How long after a run returned the loss of its lock may still be logged: the release
	 * comes after it.
	 */
	private static final Duration LOSS_SLACK = Duration.ofSeconds(5);

	/**
	 * What the fenced job logs once a batch has committed, with the batch, the run and
	 * the instance.
	 */
	private static final Pattern BATCH_COMMITTED = Pattern.compile("Committed fenced batch (\\d+) of run (\\d+) on ");

	/**
	 * With asynchronous replication, how long before a failover an acknowledged write may
	 * still not have reached the standby: far more than the lag on loopback.
	 */
	static final long ASYNC_LAG_BOUND_MILLIS = 5_000;

	private final DataSource observer;

	private final JdbcClient jdbc;

	private final String archiveUrl;

	private final List<Answer> answers;

	private final List<FaultWindow> windows;

	private final PostgresPair.Replication replication;

	private final Findings findings = new Findings();

	/**
	 * When the run started, by this machine's clock: the origin of the windows' times.
	 */
	private final Instant started;

	ChaosChecker(ChaosCluster cluster, ClientLog log, List<FaultWindow> windows) {
		this.replication = cluster.replication();
		this.archiveUrl = cluster.archiveUrl();
		this.findings.replication = this.replication;
		this.observer = cluster.observer();
		this.jdbc = JdbcClient.create(this.observer);
		this.answers = log.answers();
		this.started = log.started();
		this.windows = windows;
	}

	/**
	 * Run every check on the client's log and the database; the instances have stopped.
	 * @param instances every instance the run started, for the losses they logged
	 * @param failovers the moment of each failover, in the database's clock
	 * @return what the checks found
	 */
	Findings check(List<SampleInstance> instances, List<OffsetDateTime> failovers) {
		checkAnswers();
		checkSetupRequests();
		checkLedger();
		checkJobRuns(instances, failovers);
		checkLimitedRuns(instances);
		checkFencedBatches(instances);
		checkFencingTokens(failovers);
		checkInstanceLogs(instances);
		checkNoLockLeft();
		return this.findings;
	}

	/**
	 * Every answer is one its operation may get, with problem details when it is an
	 * error; every 5xx and every missing answer falls inside a fault's window, and is
	 * counted by that fault.
	 */
	private void checkAnswers() {
		Set<UUID> requests = new HashSet<>(
				this.jdbc.sql("SELECT id FROM setup_requests").query((rs, row) -> rs.getObject(1, UUID.class)).list());
		for (Answer answer : this.answers) {
			if (answer.failed()) {
				// The latest fault injected before the answer came, still unrecovered, is
				// the likeliest cause; else the latest one in whose tail it came.
				Optional<FaultWindow> cause = this.windows.stream()
					.filter((window) -> window.explains(answer))
					.filter((window) -> window.startMillis() <= answer.receivedMillis())
					.max(Comparator
						.comparing((FaultWindow window) -> window.recovered()
								&& answer.sentMillis() > window.recoveredMillis() ? 0 : 1)
						.thenComparingLong(FaultWindow::startMillis));
				if (cause.isPresent()) {
					this.findings.errorsByCause.computeIfAbsent(cause.get().kind(), (kind) -> new TreeMap<>())
						.merge(answer.outcome(), 1, Integer::sum);
				}
				else {
					this.findings.violations.add(answer.outcome()
							+ " that no fault explains (none touched that instance then): " + describe(answer));
				}
			}
			else if (this.replication == PostgresPair.Replication.ASYNC && answer.status() == 404
					&& (answer.operation() == Operation.COMPLETE_REQUEST
							|| answer.operation() == Operation.CANCEL_REQUEST)
					&& !requests.contains(answer.target())) {
				// Its acknowledged creation was lost with a failover (counted there): the
				// client asked about a request the new primary never had.
				this.findings.notFoundAfterLoss++;
			}
			else if (!answer.operation().expects(answer.status())) {
				this.findings.violations.add("unexpected " + answer.status() + " (expected one of "
						+ answer.operation().expected() + "): " + describe(answer));
			}
			else if (answer.status() >= 400 && !answer.problem()) {
				this.findings.violations.add(answer.status() + " without problem details: " + describe(answer));
			}
		}
	}

	/**
	 * Every acknowledged creation, completion and cancellation is in the database; every
	 * row the client was not told of is explained by a request whose answer never came;
	 * every user within the plan at the end.
	 */
	private void checkSetupRequests() {
		Map<UUID, Row> rows = new HashMap<>();
		this.jdbc.sql("SELECT id, user_id, status FROM setup_requests")
			.query((rs, row) -> new Row(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getString(3)))
			.list()
			.forEach((row) -> rows.put(row.id(), row));
		Set<UUID> acknowledged = new HashSet<>();
		Map<UUID, Integer> unknownCreations = new HashMap<>();
		Map<UUID, Set<String>> finishedOrUnknown = new HashMap<>();
		for (Answer answer : this.answers) {
			switch (answer.operation()) {
				case CREATE_REQUEST -> {
					if (answer.created() != null) {
						acknowledged.add(answer.created());
						this.findings.acknowledged++;
						Row row = rows.get(answer.created());
						if (row == null || !row.owner().equals(answer.subject())) {
							lost(answer, "setup request " + answer.created() + " of user " + answer.subject()
									+ ", answered 201 at " + answer.receivedMillis() + " ms, is not in the database");
						}
					}
					else if (answer.unknown()) {
						unknownCreations.merge(answer.subject(), 1, Integer::sum);
					}
				}
				case COMPLETE_REQUEST, CANCEL_REQUEST -> {
					String status = (answer.operation() == Operation.COMPLETE_REQUEST) ? "completed" : "cancelled";
					if (answer.status() == 200 || answer.unknown()) {
						finishedOrUnknown.computeIfAbsent(answer.target(), (id) -> new HashSet<>()).add(status);
					}
					if (answer.status() == 200) {
						this.findings.acknowledged++;
						Row row = rows.get(answer.target());
						if (row == null || !row.status().equals(status)) {
							lost(answer,
									"setup request " + answer.target() + ", answered 200 " + status + " at "
											+ answer.receivedMillis() + " ms, is "
											+ ((row != null) ? row.status() : "missing") + " in the database");
						}
					}
				}
				default -> {
				}
			}
		}
		Map<UUID, Integer> unacknowledged = new HashMap<>();
		for (Row row : rows.values()) {
			if (!acknowledged.contains(row.id())) {
				unacknowledged.merge(row.owner(), 1, Integer::sum);
			}
			if ((row.status().equals("completed") || row.status().equals("cancelled"))
					&& !finishedOrUnknown.getOrDefault(row.id(), Set.of()).contains(row.status())) {
				this.findings.violations.add("setup request " + row.id() + " is " + row.status()
						+ ", but no request to do so was answered 200 or went unanswered");
			}
		}
		unacknowledged.forEach((user, count) -> {
			int unknown = unknownCreations.getOrDefault(user, 0);
			if (count > unknown) {
				this.findings.violations.add("user " + user + " has " + count + " setup request(s) the client was "
						+ "not told of, but only " + unknown + " creation(s) went unanswered: a rejected one was kept");
			}
		});
		this.findings.unknown += unknownCreations.values().stream().mapToInt(Integer::intValue).sum();
	}

	/**
	 * Every acknowledged withdrawal and transfer is in the database, and every row the
	 * client was not told of is explained by a request whose answer never came.
	 */
	private void checkLedger() {
		checkWrites(Operation.WITHDRAW, "withdrawals", "account_id");
		checkWrites(Operation.TRANSFER, "transfers", "from_account_id");
	}

	private void checkWrites(Operation operation, String table, String ownerColumn) {
		Map<UUID, UUID> rows = new HashMap<>();
		this.jdbc.sql("SELECT id, " + ownerColumn + " FROM " + table)
			.query((rs, row) -> rows.put(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class)))
			.list();
		Set<UUID> acknowledged = new HashSet<>();
		Map<UUID, Integer> unknown = new HashMap<>();
		for (Answer answer : this.answers) {
			if (answer.operation() != operation) {
				continue;
			}
			if (answer.created() != null) {
				acknowledged.add(answer.created());
				this.findings.acknowledged++;
				if (!answer.subject().equals(rows.get(answer.created()))) {
					lost(answer, operation + " " + answer.created() + " from " + answer.subject() + ", answered 201 at "
							+ answer.receivedMillis() + " ms, is not in " + table);
				}
			}
			else if (answer.unknown()) {
				unknown.merge(answer.subject(), 1, Integer::sum);
			}
		}
		Map<UUID, Integer> unacknowledged = new HashMap<>();
		rows.forEach((id, owner) -> {
			if (!acknowledged.contains(id)) {
				unacknowledged.merge(owner, 1, Integer::sum);
			}
		});
		unacknowledged.forEach((account, count) -> {
			int unanswered = unknown.getOrDefault(account, 0);
			if (count > unanswered) {
				this.findings.violations.add("account " + account + " has " + count + " row(s) in " + table
						+ " the client was not told of, but only " + unanswered + " went unanswered");
			}
		});
		this.findings.unknown += unknown.values().stream().mapToInt(Integer::intValue).sum();
	}

	/**
	 * Count an acknowledged write that is not in the database: with asynchronous
	 * replication, one acknowledged shortly before a failover, or during it by the old
	 * primary, is PostgreSQL's documented loss, counted apart; any other is a lost write.
	 */
	private void lost(Answer answer, String what) {
		boolean failover = this.replication == PostgresPair.Replication.ASYNC && this.windows.stream()
			.anyMatch((window) -> window.kind() == FaultKind.FAILOVER
					&& answer.receivedMillis() >= window.startMillis() - ASYNC_LAG_BOUND_MILLIS
					&& (!window.recovered() || answer.receivedMillis() <= window.recoveredMillis()));
		(failover ? this.findings.lostWithFailover : this.findings.lost).add(what);
	}

	/**
	 * No two runs of the job overlap, except after a loss the job reported (listed with
	 * it), and claims are at least a period apart. Times are the database's clock.
	 */
	private void checkJobRuns(List<SampleInstance> instances, List<OffsetDateTime> failovers) {
		List<Run> runs = this.jdbc
			.sql("SELECT id, instance, claimed_at, started_at, finished_at FROM job_runs WHERE job = ? "
					+ "ORDER BY started_at")
			.param(StaleRequestExpiry.JOB)
			.query(Run.class)
			.list();
		Map<String, List<String>> losses = losses(instances, StaleRequestExpiry.JOB);
		this.findings.jobRuns = runs.size();
		this.findings.unfinishedRuns = (int) runs.stream().filter((run) -> run.finishedAt() == null).count();
		this.findings.lossesReported = losses.values().stream().mapToInt(List::size).sum();
		for (int i = 0; i < runs.size(); i++) {
			Run earlier = runs.get(i);
			if (earlier.finishedAt() == null) {
				continue;
			}
			for (int j = i + 1; j < runs.size() && runs.get(j).startedAt().isBefore(earlier.finishedAt()); j++) {
				Run later = runs.get(j);
				List<String> lost = losses.getOrDefault(earlier.instance(), List.of())
					.stream()
					.filter((line) -> during(line, earlier))
					.toList();
				String overlap = "run " + earlier.id() + " on " + earlier.instance() + " (" + earlier.startedAt()
						+ " to " + earlier.finishedAt() + ") overlaps run " + later.id() + " on " + later.instance()
						+ " (from " + later.startedAt() + ")";
				if (lost.isEmpty()) {
					this.findings.violations
						.add(overlap + ", and " + earlier.instance() + " reported no loss during it");
				}
				else {
					this.findings.overlapsAfterLoss
						.add(overlap + "; " + earlier.instance() + " reported: " + lost.get(0).strip());
				}
			}
		}
		checkRunsAtFailovers(runs, losses, failovers);
		List<Run> byClaim = new ArrayList<>(runs);
		byClaim.sort((a, b) -> a.claimedAt().compareTo(b.claimedAt()));
		for (int i = 1; i < byClaim.size(); i++) {
			Duration between = Duration.between(byClaim.get(i - 1).claimedAt(), byClaim.get(i).claimedAt());
			if (between.compareTo(ChaosCluster.JOB_PERIOD) < 0) {
				this.findings.violations.add("job claims " + between.toMillis() + " ms apart, less than a period: "
						+ byClaim.get(i - 1) + " and " + byClaim.get(i));
			}
		}
	}

	/**
	 * Every run of the job in progress at a failover, which did not finish, was reported
	 * lost by its instance within {@link #LOSS_SLACK} of the failover: its lock ended
	 * with the old primary. A run that finished after the failover had passed its last
	 * {@code checkHeld()} before it; it is counted, not checked.
	 */
	private void checkRunsAtFailovers(List<Run> runs, Map<String, List<String>> losses,
			List<OffsetDateTime> failovers) {
		// A run that started earlier than its work time before the failover and has not
		// finished was ended by an earlier fault.
		Duration longest = ChaosCluster.JOB_WORK_TIME;
		for (OffsetDateTime at : failovers) {
			for (Run run : runs) {
				boolean inProgress = run.startedAt().isBefore(at) && run.startedAt().isAfter(at.minus(longest))
						&& (run.finishedAt() == null || run.finishedAt().isAfter(at));
				if (!inProgress) {
					continue;
				}
				this.findings.runsAtFailover++;
				boolean reported = losses.getOrDefault(run.instance(), List.of())
					.stream()
					.anyMatch((line) -> loggedBetween(line, at.toInstant().minusSeconds(1),
							at.toInstant().plus(LOSS_SLACK)));
				if (reported) {
					this.findings.runsAtFailoverReportedLost++;
				}
				else if (run.finishedAt() == null) {
					this.findings.violations.add("run " + run.id() + " on " + run.instance() + " (from "
							+ run.startedAt() + ") was in progress at the failover at " + at + " and never finished, "
							+ "but " + run.instance() + " reported no loss within " + LOSS_SLACK.toSeconds() + " s");
				}
			}
		}
	}

	/**
	 * At no run's start do more runs of the limited job work than it has permits, unless
	 * leaving out the runs whose instance knew of their loss brings the count back within
	 * them: an unexplained excess is a violation, an explained one is reported with how
	 * long it lasted. Counted by the kind of fault in progress at each run's start.
	 *
	 * <p>
	 * An instance knew of a run's loss when it recorded {@code lost_at}, or logged the
	 * loss of the job's permit after the run started and before its own next run started:
	 * each instance runs the job on one scheduler thread, one run at a time, and logs a
	 * loss found at the release before the call returns. The log covers a loss the
	 * instance could not record, the database being down.
	 */
	private void checkLimitedRuns(List<SampleInstance> instances) {
		Map<String, List<String>> losses = losses(instances, PartnerFeedSync.JOB);
		List<LimitedRow> rows = this.jdbc
			.sql("SELECT id, instance, started_at, finished_at, lost_at FROM job_runs WHERE job = ? "
					+ "ORDER BY started_at")
			.param(PartnerFeedSync.JOB)
			.query(LimitedRow.class)
			.list();
		List<LimitedRuns.Run> runs = new ArrayList<>();
		for (LimitedRow row : rows) {
			Instant next = rows.stream()
				.filter((later) -> later.instance().equals(row.instance())
						&& later.startedAt().isAfter(row.startedAt()))
				.map((later) -> later.startedAt().toInstant())
				.findFirst()
				.orElse(Instant.MAX);
			boolean logged = losses.getOrDefault(row.instance(), List.of())
				.stream()
				.anyMatch((line) -> loggedBetween(line, row.startedAt().toInstant(), next));
			runs.add(new LimitedRuns.Run(row.id(), row.instance(), row.startedAt(), row.finishedAt(), row.lostAt(),
					row.lostAt() != null || logged));
		}
		this.findings.limitedLossesReported = losses.values().stream().mapToInt(List::size).sum();
		this.findings.limited = LimitedRuns.count(runs, ChaosCluster.LIMITED_PERMITS, this::faultsAt);
		this.findings.limitedRuns = runs.size();
		this.findings.limitedRunsLost = (int) runs.stream().filter(LimitedRuns.Run::lossKnown).count();
		this.findings.limited.unexplained.forEach((excess) -> this.findings.violations
			.add("the limited job " + PartnerFeedSync.JOB + " (" + ChaosCluster.LIMITED_PERMITS + " permits): " + excess
					+ "; no instance of them but those marked knew that it had lost its permit"));
	}

	/**
	 * Return the kinds of fault in progress at a moment of the database's clock, this
	 * machine's as the client's is.
	 */
	private Set<FaultKind> faultsAt(OffsetDateTime moment) {
		long millis = Duration.between(this.started, moment.toInstant()).toMillis();
		Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
		this.windows.stream()
			.filter((window) -> window.covers(millis, millis))
			.forEach((window) -> kinds.add(window.kind()));
		return kinds;
	}

	/**
	 * Return the losses of a job's lock that each instance logged, by instance: the
	 * library names the lock, and so the job, in each such line.
	 */
	private static Map<String, List<String>> losses(List<SampleInstance> instances, String job) {
		Map<String, List<String>> losses = new TreeMap<>();
		for (SampleInstance instance : instances) {
			instance.output()
				.stream()
				.filter((line) -> (line.contains(LOST) || line.contains(ROLLBACK_FAILED)) && line.contains(job))
				.forEach((line) -> losses.computeIfAbsent(instance.name(), (name) -> new ArrayList<>()).add(line));
		}
		return losses;
	}

	private static boolean loggedBetween(String line, Instant from, Instant to) {
		try {
			Instant logged = Instant.parse(line.substring(0, line.indexOf(' ')));
			return !logged.isBefore(from) && !logged.isAfter(to);
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Return whether a loss the instance logged belongs to a run: logged after the run
	 * started, and at most {@link #LOSS_SLACK} after it finished (a loss found at the
	 * release is logged just after the run returned). Both clocks are this machine's; a
	 * line without a timestamp belongs to no run.
	 */
	private static boolean during(String line, Run run) {
		try {
			Instant logged = Instant.parse(line.substring(0, line.indexOf(' ')));
			return !logged.isBefore(run.startedAt().toInstant())
					&& !logged.isAfter(run.finishedAt().toInstant().plus(LOSS_SLACK));
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * The fenced job: in commit order, no batch of an older run commits after the first
	 * batch of a newer one; and every batch an instance logged as committed is in the
	 * database.
	 *
	 * <p>
	 * Commit order is each batch transaction's commit timestamp, which PostgreSQL takes
	 * as it writes the commit record ({@code track_commit_timestamp} is on), read through
	 * the transaction id its rows carry. Not a sequence value taken inside the batch:
	 * that is taken before the commit, so its order is the commit order only because
	 * fenced transactions of one key run one at a time (each holds the fence from its
	 * lock statement to its end, so the next one's value is taken after the earlier one
	 * committed). That is the property under test, and an order that assumes it cannot
	 * show it broken: a batch frozen after taking its value and committing late would
	 * keep its early value. The commit timestamp comes from the commit itself, whatever
	 * the fence does. One server clock stamps them all, the old primary's and after a
	 * failover the new one's, on one machine. Under the fence, the next batch's
	 * transaction starts only after the previous one released the fence, which happens
	 * after its commit record was written (and, with synchronous replication, the standby
	 * had it): stamps of fenced commits differ by at least that hand-over, so only a step
	 * back of the clock could order two of them wrongly. Ties are ordered by run. Run ids
	 * increase in the order the lock passed: each is taken by its run's first fenced
	 * transaction.
	 */
	private void checkFencedBatches(List<SampleInstance> instances) {
		List<FencedBatch> batches = this.jdbc
			.sql("SELECT b.run, b.batch, b.instance, pg_xact_commit_timestamp((b.xid::text)::xid) AS committed_at "
					+ "FROM (SELECT DISTINCT run, batch, instance, xid FROM fenced_batch_rows) b "
					+ "ORDER BY committed_at, b.run, b.batch")
			.query(FencedBatch.class)
			.list();
		this.findings.fencedRuns = this.jdbc.sql("SELECT count(*) FROM fenced_runs").query(Integer.class).single();
		this.findings.fencedRunsUnfinished = this.jdbc.sql("SELECT count(*) FROM fenced_runs WHERE finished_at IS NULL")
			.query(Integer.class)
			.single();
		this.findings.fencedBatches = batches.size();
		FencedBatch firstOfNewest = null;
		for (FencedBatch batch : batches) {
			if (batch.committedAt() == null) {
				this.findings.violations.add("batch " + batch.batch() + " of fenced run " + batch.run()
						+ " has no commit timestamp: is track_commit_timestamp on?");
			}
			else if (firstOfNewest != null && batch.run() < firstOfNewest.run()) {
				this.findings.fencedOrderingViolations++;
				this.findings.violations.add("batch " + batch.batch() + " of fenced run " + batch.run() + " ("
						+ batch.instance() + ") committed at " + batch.committedAt() + ", after the first batch of the "
						+ "newer run " + firstOfNewest.run() + " (" + firstOfNewest.instance() + ") at "
						+ firstOfNewest.committedAt());
			}
			else if (firstOfNewest == null || batch.run() > firstOfNewest.run()) {
				firstOfNewest = batch;
			}
		}
		Set<String> inDatabase = new HashSet<>();
		batches.forEach((batch) -> inDatabase.add(batch.run() + "/" + batch.batch()));
		for (SampleInstance instance : instances) {
			for (String line : instance.output()) {
				Matcher matcher = BATCH_COMMITTED.matcher(line);
				if (!matcher.find()) {
					if (line.contains(LOST) && line.contains(FencedBatchJob.JOB)) {
						this.findings.fencedLossesReported++;
					}
					continue;
				}
				this.findings.fencedBatchesLogged++;
				if (!inDatabase.contains(matcher.group(2) + "/" + matcher.group(1))) {
					String missing = instance.name() + " logged batch " + matcher.group(1) + " of fenced run "
							+ matcher.group(2) + " as committed, and it is not in the database: " + line.strip();
					// Asynchronous replication may lose a commit with a failover;
					// synchronous may not.
					(this.replication == PostgresPair.Replication.ASYNC ? this.findings.lostWithFailover
							: this.findings.lost)
						.add(missing);
				}
			}
		}
	}

	/**
	 * The fenced job's fencing tokens: in the order the lock passed (run ids), every
	 * run's token is greater than the one before, across freezes, cuts, kills and
	 * failovers; and the archive outside the lock's database, which refuses a token lower
	 * than one it has accepted, accepted no write whose token is lower than one accepted
	 * before it (in the order it accepted them). Under asynchronous replication a
	 * failover may lose a token's commit, and the order with it: a step back with a
	 * failover between the two runs' starts is counted apart, as a lost write is.
	 */
	private void checkFencingTokens(List<OffsetDateTime> failovers) {
		List<TokenRun> runs = this.jdbc
			.sql("SELECT token, started_at FROM fenced_runs WHERE token IS NOT NULL ORDER BY id")
			.query(TokenRun.class)
			.list();
		this.findings.fencedTokens = runs.size();
		for (int i = 1; i < runs.size(); i++) {
			TokenRun previous = runs.get(i - 1);
			TokenRun run = runs.get(i);
			if (run.token() <= previous.token()) {
				String violation = "fenced run " + (i + 1) + " of " + runs.size() + " got fencing token " + run.token()
						+ ", not greater than its predecessor's " + previous.token();
				// Only a failover between the two runs can lose the earlier token's
				// commit.
				boolean failoverBetween = failovers.stream()
					.anyMatch((failover) -> !failover.isBefore(previous.startedAt())
							&& !failover.isAfter(run.startedAt()));
				if (this.replication == PostgresPair.Replication.ASYNC && failoverBetween) {
					this.findings.lostWithFailover.add(violation);
				}
				else {
					this.findings.fencedTokenOrderViolations++;
					this.findings.violations.add(violation);
				}
			}
		}
		try (HikariDataSource archiveDatabase = new HikariDataSource()) {
			archiveDatabase.setJdbcUrl(this.archiveUrl);
			archiveDatabase.setMaximumPoolSize(1);
			JdbcClient archive = JdbcClient.create(archiveDatabase);
			List<Long> accepted = archive.sql("SELECT token FROM archive_writes ORDER BY id").query(Long.class).list();
			this.findings.archiveAccepted = accepted.size();
			long highest = Long.MIN_VALUE;
			for (long token : accepted) {
				if (token < highest) {
					this.findings.archiveLowerAccepted++;
					this.findings.violations
						.add("the archive accepted a write with fencing token " + token + " after one with " + highest);
				}
				highest = Math.max(highest, token);
			}
			this.findings.archiveRefused = archive.sql("SELECT count(*) FROM archive_refused")
				.query(Integer.class)
				.single();
		}
	}

	/**
	 * No instance met a deadlock or a broken constraint: a fault explains a lost
	 * connection, never these. A 5xx the client got inside a fault's window could
	 * otherwise hide one, since its body does not tell the cause.
	 */
	private void checkInstanceLogs(List<SampleInstance> instances) {
		for (SampleInstance instance : instances) {
			Map<String, Integer> found = new TreeMap<>();
			for (String line : instance.output()) {
				for (String symptom : RULE_BROKEN) {
					if (line.contains(symptom)) {
						found.merge(symptom, 1, Integer::sum);
					}
				}
			}
			found.forEach((symptom, count) -> this.findings.violations
				.add(instance.name() + " logged '" + symptom + "' " + count + " time(s)"));
		}
	}

	/**
	 * No advisory lock is held or awaited once every instance has stopped; PostgreSQL
	 * ends the sessions of an ended process when it reads their closed sockets, so wait
	 * for that, within the hang bound.
	 */
	private void checkNoLockLeft() {
		PgLocks pgLocks = new PgLocks(this.observer);
		boolean cleared = Facts.await(PgLocks.HANG_TIMEOUT, () -> Optional.of(pgLocks.all()).filter(List::isEmpty))
			.isPresent();
		List<PgLocks.AdvisoryLock> left = cleared ? List.of() : pgLocks.all();
		if (!left.isEmpty()) {
			this.findings.violations.add("advisory locks left after every instance stopped: " + left);
		}
	}

	private static String describe(Answer answer) {
		return answer.operation() + " to instance-" + answer.instance() + " sent at " + answer.sentMillis()
				+ " ms, answered at " + answer.receivedMillis() + " ms"
				+ ((answer.title() != null) ? ", title '" + answer.title() + "'" : "")
				+ ((answer.failure() != null) ? ", " + answer.failure() : "");
	}

	/**
	 * A row of {@code setup_requests}.
	 */
	private record Row(UUID id, UUID owner, String status) {
	}

	/**
	 * A row of {@code job_runs}.
	 */
	record Run(long id, String instance, OffsetDateTime claimedAt, OffsetDateTime startedAt,
			@Nullable OffsetDateTime finishedAt) {
	}

	/**
	 * A row of {@code job_runs} of the limited job.
	 */
	private record LimitedRow(long id, String instance, OffsetDateTime startedAt, @Nullable OffsetDateTime finishedAt,
			@Nullable OffsetDateTime lostAt) {
	}

	/**
	 * A run of the fenced job with its fencing token.
	 */
	private record TokenRun(long token, OffsetDateTime startedAt) {

	}

	/**
	 * A batch of the fenced job, from its rows.
	 */
	private record FencedBatch(long run, int batch, String instance, @Nullable OffsetDateTime committedAt) {
	}

	/**
	 * What the checks found.
	 */
	static final class Findings {

		/**
		 * Every rule broken, every answer that should not have come, every error outside
		 * a fault.
		 */
		final List<String> violations = new ArrayList<>();

		/**
		 * Every acknowledged write not in the database, but those lost with a failover
		 * under asynchronous replication.
		 */
		final List<String> lost = new ArrayList<>();

		/**
		 * Every acknowledged write lost with a failover under asynchronous replication:
		 * acknowledged by the old primary before the standby had it.
		 */
		final List<String> lostWithFailover = new ArrayList<>();

		/**
		 * With asynchronous replication, completions and cancellations answered 404
		 * because the request's creation was lost with a failover.
		 */
		int notFoundAfterLoss;

		/** The replication of the run. */
		PostgresPair.Replication replication = PostgresPair.Replication.SYNC;

		/**
		 * For each failover, the time from the promotion to the start of the next run of
		 * the job.
		 */
		final List<Long> jobAgainAfterFailover = new ArrayList<>();

		/**
		 * The errors laid to each kind of fault, by outcome (a 5xx status, or no answer).
		 */
		final Map<FaultKind, Map<String, Integer>> errorsByCause = new EnumMap<>(FaultKind.class);

		/**
		 * Each overlap of two job runs, with the loss its first run's instance reported.
		 */
		final List<String> overlapsAfterLoss = new ArrayList<>();

		/** How many writes the client saw acknowledged. */
		int acknowledged;

		/** How many writes went unanswered, so may or may not have happened. */
		int unknown;

		int jobRuns;

		int unfinishedRuns;

		int lossesReported;

		/** Runs of the job in progress at a failover. */
		int runsAtFailover;

		/** Of those, the runs whose instance reported the loss. */
		int runsAtFailoverReportedLost;

		/** Runs of the limited job. */
		int limitedRuns;

		/** Of those, the runs whose instance knew that they lost their permit. */
		int limitedRunsLost;

		/** Losses of the limited job's permits the instances logged. */
		int limitedLossesReported;

		/** How many runs of the limited job worked at once, by fault. */
		LimitedRuns.Counted limited = new LimitedRuns.Counted(ChaosCluster.LIMITED_PERMITS);

		/** Runs of the fenced job. */
		int fencedRuns;

		/** Of those, the runs that did not finish. */
		int fencedRunsUnfinished;

		/** Batches of the fenced job in the database. */
		int fencedBatches;

		/** Batches the instances logged as committed. */
		int fencedBatchesLogged;

		/** Losses of the fenced job's lock the instances logged. */
		int fencedLossesReported;

		/** Batches of an older run committed after a newer run's first batch. */
		int fencedOrderingViolations;

		/** Runs of the fenced job that recorded a fencing token. */
		int fencedTokens;

		/** Runs whose token was not greater than the one of the run before. */
		int fencedTokenOrderViolations;

		/** Writes the archive outside the lock's database accepted. */
		int archiveAccepted;

		/** Writes it refused, their token lower than one it had accepted. */
		int archiveRefused;

		/** Writes it accepted with a token lower than one accepted before. */
		int archiveLowerAccepted;

		/**
		 * Freezes of the fenced job's holder that caught it inside a fenced transaction.
		 */
		int frozenInFencedTransaction;

	}

}
