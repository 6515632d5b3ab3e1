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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import io.github.advisorylock.sample.jobs.FencedBatchJob;
import io.github.advisorylock.sample.jobs.PartnerFeedSync;
import io.github.advisorylock.testsupport.PostgresPair;

/**
 * Writes the report of a chaos run as Markdown: the command, seed and environment, the
 * operations by kind and answer, the faults by kind with their recovery times, the job's
 * runs, the violations and lost writes.
 *
 * @author advisory-lock authors
 */
final class ReliabilityReport {

	/** Where the written part of a page starts. */
	static final String START = "<!-- chaos-report:start -->";

	/** Where it ends. */
	static final String END = "<!-- chaos-report:end -->";

	/** How many of the limited job's explained excesses the report lists, the longest. */
	private static final int LONGEST_SHOWN = 5;

	private final StringBuilder text = new StringBuilder();

	/**
	 * Write the report.
	 * @param run the run's settings and environment
	 * @param answers the client's log
	 * @param windows the faults
	 * @param findings what the checks found
	 * @param sampler the checks made during the run
	 * @return the Markdown
	 */
	String write(RunDescription run, List<Answer> answers, List<FaultWindow> windows, ChaosChecker.Findings findings,
			InvariantSampler sampler) {
		line("## The last run");
		line("");
		line("Written by `ChaosTests` on " + run.finishedAt() + ", from here to the end of the page; run the "
				+ "command again rather than edit it. Three sample-app JVMs against a durable PostgreSQL primary (`fsync`, "
				+ "`synchronous_commit` and `full_page_writes` on) with a streaming standby, "
				+ findings.replication.description() + " replication, the first two instances with a multi-host JDBC "
				+ "URL (`targetServerType=primary`), `instance-" + ChaosCluster.THROUGH_PGBOUNCER
				+ "` through a real PgBouncer in `pool_mode = transaction` (re-pointed at the new primary after each "
				+ "failover), the scheduled job (`expire-stale-requests`,"
				+ " invocation scope, SKIP), the limited job (`" + PartnerFeedSync.JOB
				+ "`, invocation scope, SKIP, `permits = " + ChaosCluster.LIMITED_PERMITS + "`) and the fenced job (`"
				+ FencedBatchJob.JOB + "`, batches in "
				+ "fenced transactions) on every instance, each instance's connections through a relay of its own that a "
				+ "fault can cut, a seeded mixed HTTP load of " + LoadGenerator.CLIENTS
				+ " clients, and one fault at a time, each injected only after every instance answered again after "
				+ "the previous one.");
		line("");
		line("```shell");
		line(run.command());
		line("```");
		line("");
		line("| | |");
		line("| --- | --- |");
		line("| seed | " + run.seed() + " |");
		line("| duration of the load | " + run.duration().toSeconds() + " s (whole run, starts and checks included: "
				+ run.wallClock().toSeconds() + " s) |");
		line("| machine | " + run.environment() + " |");
		line("| servers | " + run.versions() + " |");
		line("| replication | " + findings.replication.description()
				+ ((findings.replication == PostgresPair.Replication.SYNC)
						? " (`synchronous_standby_names` names the standby)" : " (`-Dchaos.replication=async`)")
				+ " |");
		line("| job | period " + ChaosCluster.JOB_PERIOD.toMillis() + " ms, work "
				+ ChaosCluster.JOB_WORK_TIME.toMillis() + " ms, heartbeat " + ChaosCluster.HEARTBEAT.toMillis()
				+ " ms (a silent lock session ends after three)" + " |");
		line("| limited job | " + ChaosCluster.LIMITED_PERMITS + " permits, period "
				+ ChaosCluster.LIMITED_PERIOD.toMillis() + " ms, work " + ChaosCluster.LIMITED_WORK_TIME.toMillis()
				+ " ms, the same heartbeat |");
		line("| plan report | at most " + ChaosCluster.REPORT_PERMITS + " of a plan at once (TRY, transaction scope), "
				+ "each taking " + ChaosCluster.REPORT_WORK_TIME.toMillis() + " ms in the database |");
		line("| fenced job | period " + ChaosCluster.FENCED_PERIOD.toMillis() + " ms, " + ChaosCluster.FENCED_BATCHES
				+ " batches a run, each waiting " + ChaosCluster.FENCED_PAUSE.toMillis()
				+ " ms between its insert and its commit; a fenced transaction idle for three heartbeats is ended |");
		line("");
		long errors = answers.stream().filter(Answer::failed).count();
		line("### Result");
		line("");
		line("| | |");
		line("| --- | --- |");
		line("| violations | **" + findings.violations.size() + "** |");
		line("| lost acknowledged writes | **" + findings.lost.size() + "** of " + findings.acknowledged
				+ " acknowledged |");
		if (findings.replication == PostgresPair.Replication.ASYNC) {
			line("| acknowledged writes lost with a failover (asynchronous replication: PostgreSQL's promise, not the "
					+ "starter's) | **" + findings.lostWithFailover.size()
					+ "**; completions and cancellations answered 404 since " + "the request's creation was lost: "
					+ findings.notFoundAfterLoss + " |");
		}
		line("| writes of unknown outcome (no answer, or a 5xx) | " + findings.unknown + " |");
		line("| requests | " + answers.size() + ", of which " + errors + " got a 5xx, no answer, or were refused "
				+ "(the instance was down), every one inside a fault's window or counted as a violation |");
		line("| faults injected | " + windows.size() + "; their windows, tails included, cover " + covered(windows, run)
				+ "% of the load's time |");
		long failovers = windows.stream().filter((window) -> window.kind() == FaultKind.FAILOVER).count();
		long[] again = findings.jobAgainAfterFailover.stream().mapToLong(Long::longValue).sorted().toArray();
		line("| failovers | " + failovers + "; from the promotion to the job's next run on the new primary: "
				+ ((again.length == 0) ? "-" : "min " + again[0] + " / median " + again[again.length / 2] + " / max "
						+ again[again.length - 1] + " ms")
				+ " |");
		line("| checks of the standby | " + sampler.standbySamples() + " (with every check of the rules: an advisory "
				+ "lock held or awaited on a server in recovery is a violation); " + sampler.standbySessionsSeen()
				+ " saw a session of an instance there, pgjdbc asking whether the server is the primary |");
		line("| checks of every rule during the run | " + sampler.samples() + " (every " + "200 ms, one snapshot each; "
				+ sampler.unreadable() + " could not run while the server was down) |");
		line("| longest wait of any request answered | "
				+ answers.stream().filter(Answer::answered).mapToLong(Answer::waitedMillis).max().orElse(0) + " ms |");
		line("");
		operations(answers);
		faults(windows, findings);
		line("### The job");
		line("");
		line(findings.jobRuns + " runs, " + findings.unfinishedRuns + " of them unfinished (their instance was killed,"
				+ " frozen or stopped, or they found their lock lost at `checkHeld()`); " + findings.lossesReported
				+ " lock losses reported in the instances' logs. Overlapping runs, each after a loss its first run's "
				+ "instance reported (the expiry job's writes are not fenced): " + findings.overlapsAfterLoss.size()
				+ ". Runs in " + "progress at a failover: " + findings.runsAtFailover + ", of which "
				+ findings.runsAtFailoverReportedLost
				+ " were reported lost by their instance within 5 s (one that never finished must be); the job's next "
				+ "run on the new primary is timed in the result above.");
		line("");
		findings.overlapsAfterLoss.forEach((overlap) -> line("- " + overlap));
		if (!findings.overlapsAfterLoss.isEmpty()) {
			line("");
		}
		limits(findings, sampler, answers);
		line("### The fenced job");
		line("");
		line("| | |");
		line("| --- | --- |");
		line("| runs | " + findings.fencedRuns + ", of which " + findings.fencedRunsUnfinished
				+ " unfinished (refused at a fenced write, or their instance killed or stopped) |");
		line("| batches committed | " + findings.fencedBatches + "; the instances logged "
				+ findings.fencedBatchesLogged
				+ " as committed, every one found in the database or listed as lost below |");
		line("| losses of its lock reported in the instances' logs | " + findings.fencedLossesReported + " |");
		line("| holders frozen inside a fenced transaction | " + findings.frozenInFencedTransaction + " of "
				+ windows.stream().filter((window) -> window.kind() == FaultKind.FREEZE_FENCED_WRITER).count()
				+ " freezes of the holder |");
		line("| ordering violations (a batch of an older run committed after a newer run's first batch, by commit "
				+ "timestamp) | **" + findings.fencedOrderingViolations + "** |");
		line("| runs with a fencing token; tokens not greater than the run's before, in the order the lock passed | "
				+ findings.fencedTokens + "; **" + findings.fencedTokenOrderViolations + "** |");
		line("| writes to the archive outside the lock's database: accepted; refused (a stale holder's token) | "
				+ findings.archiveAccepted + "; " + findings.archiveRefused + " |");
		line("| writes the archive accepted with a token lower than one it had accepted | **"
				+ findings.archiveLowerAccepted + "** |");
		line("");
		failures(answers);
		faultLog(windows, answers);
		list("Violations", findings.violations);
		list("Lost acknowledged writes", findings.lost);
		line("### How to read it");
		line("");
		line("- An answer is *acknowledged* when the client got its 201 (or 200 for a completion or cancellation): "
				+ "its row must be in the database, in that state. A request that got no answer, or a 5xx, may have "
				+ "committed or not: it is *unknown*, and it may explain at most one row the client was not told of. "
				+ "A request rejected with a business 409, or whose connection was refused, explains none.");
		line("- An error is laid to a fault only if it went to an instance that fault touched (the one killed or "
				+ "frozen, those whose sessions were ended, the one behind PgBouncer for its restart, all for a server "
				+ "restart or a failover, none for a lock held from outside), and to the latest such fault whose window it falls "
				+ "in, preferring one not yet recovered over the tail of an earlier one.");
		line("- A fault's window runs from its injection to the moment every instance answered a request that reads "
				+ "the database, plus " + FaultWindow.TAIL_MILLIS + " ms: a pooled connection a fault broke is found "
				+ "broken only when next used. An error outside every window is a violation. *Recovery* is the window "
				+ "without that tail.");
		line("- Malformed and hostile requests (bad ids, huge and negative amounts, transfers to oneself, unknown "
				+ "users and accounts) must get exactly their 400 or 404 with `application/problem+json`, during "
				+ "faults too, unless the fault left them without an answer.");
		line("- Every instance's log is searched for `deadlock detected` and `violates check constraint`: a fault "
				+ "explains a lost connection, never these, and a 5xx inside a window does not say its cause.");
		line("- The fenced job's batches are ordered by their transactions' commit timestamps "
				+ "(`track_commit_timestamp`), which do not rely on the fence they check. A line `Committed fenced batch "
				+ "b of run r` in an instance's log must have its rows in the database.");
		line("- Each run of the fenced job asks its hold's fencing token and records it with the run; after each "
				+ "batch it writes the batch's record, with the token, to an archive in a database outside the chaos "
				+ "servers, which refuses a token lower than one it has accepted. A refusal ends the run.");
		line("- The rules (every user within the plan, money conserved, no negative balance, every daily limit) "
				+ "are checked every 200 ms during the run, each in one statement, and once more at the end.");
		line("- PostgreSQL is restarted with `pg_ctl stop -m " + ChaosCluster.STOP_MODE + "`: open transactions "
				+ "are rolled back and sessions ended, a checkpoint is written; PgBouncer with SIGTERM, its immediate"
				+ " shutdown.");
		line("- A failover promotes the standby (`pg_ctl promote`), stops the old primary with `pg_ctl stop -m "
				+ "immediate`, re-points PgBouncer (its configuration rewritten, then restarted) and builds a new standby "
				+ "from the new primary on the old one's port, with `pg_backup_start`, a copy and `pg_backup_stop`. Its "
				+ "window covers the new standby's build: with synchronous replication, commits wait for it. The job's "
				+ "next run is timed from the promotion to its `started_at`, both the database's clock.");
		line("- PgBouncer runs with `server_login_retry = 1`. With its default of 15 s, a login that fails while the "
				+ "server restarts keeps every client of PgBouncer failing for 15 s after the server is back (seen in "
				+ "this run's first version: 15 s recoveries from a 0.3 s restart). Operators: lower it, or expect "
				+ "that.");
		return this.text.toString();
	}

	/**
	 * The limits: the limited job's runs at once, overall and by the kind of fault in
	 * progress at each run's start, with each excess a known loss explains; and the
	 * report's slots seen held.
	 */
	private void limits(ChaosChecker.Findings findings, InvariantSampler sampler, List<Answer> answers) {
		LimitedRuns.Counted limited = findings.limited;
		line("### The limits");
		line("");
		line("The limited job: " + findings.limitedRuns + " runs, at most **" + limited.mostAtOnce + "** at once ("
				+ limited.permits + " permits), counted at each run's start; " + findings.limitedRunsLost
				+ " runs whose instance knew that they lost their permit (`lost_at`, or a loss logged during the "
				+ "run); " + findings.limitedLossesReported + " losses of a permit in the instances' logs. "
				+ "More runs at once than permits that no known loss explains: **" + limited.unexplained.size()
				+ "**; explained by a known loss: " + limited.explained.size() + ", the longest lasting "
				+ limited.longestExplained().toMillis() + " ms.");
		line("");
		line("| fault in progress at a run's start | runs | unexplained excess | explained excess | longest explained |");
		line("| --- | --- | --- | --- | --- |");
		for (FaultKind kind : FaultKind.values()) {
			LimitedRuns.ByFault byFault = limited.byFault.get(kind);
			if (byFault == null) {
				line("| " + kind.description() + " | 0 | - | - | - |");
				continue;
			}
			line("| " + kind.description() + " | " + byFault.runs + " | **" + byFault.unexplained + "** | "
					+ byFault.explained + " | "
					+ ((byFault.explained > 0) ? byFault.longestExplained.toMillis() + " ms" : "-") + " |");
		}
		line("");
		line("A run whose start falls inside the windows of several faults (tails included) counts under each.");
		line("");
		if (!limited.explained.isEmpty()) {
			line("The longest explained excesses (of " + limited.explained.size() + "):");
			line("");
			limited.explained.stream()
				.sorted(Comparator.comparing(LimitedRuns.Excess::duration).reversed())
				.limit(LONGEST_SHOWN)
				.forEach((excess) -> line("- " + excess));
			line("");
		}
		line("The plan report: its limit's slots in `pg_locks` at every check of the rules, one slot beyond its "
				+ ChaosCluster.REPORT_PERMITS + " permits included; at most **" + sampler.mostReportSlots()
				+ "** of one plan held at once, " + sampler.reportSlotsSeen() + " checks saw a slot held; reports "
				+ "answered: " + reports(answers, 200) + ", turned away (429): " + reports(answers, 429) + ".");
		line("");
	}

	private static long reports(List<Answer> answers, int status) {
		return answers.stream()
			.filter((answer) -> answer.operation() == Operation.PLAN_REPORT && answer.status() == status)
			.count();
	}

	/**
	 * Return the share of the load's time inside some fault's window: an error there is
	 * laid to the fault, so the larger it is, the more the check of the instances' logs
	 * for deadlocks and broken constraints matters.
	 */
	private static long covered(List<FaultWindow> windows, RunDescription run) {
		long total = 0;
		long end = -1;
		for (FaultWindow window : windows) {
			long to = window.recovered() ? window.recoveredMillis() + FaultWindow.TAIL_MILLIS : window.startMillis();
			long from = Math.max(window.startMillis(), end);
			if (to > from) {
				total += to - from;
			}
			end = Math.max(end, to);
		}
		return Math.min(100, total * 100 / Math.max(1, run.duration().toMillis()));
	}

	private void operations(List<Answer> answers) {
		Map<String, Predicate<Answer>> columns = new LinkedHashMap<>();
		columns.put("200", (answer) -> answer.status() == 200);
		columns.put("201", (answer) -> answer.status() == 201);
		columns.put("400", (answer) -> answer.status() == 400);
		columns.put("404", (answer) -> answer.status() == 404);
		columns.put("409 rule", Answer::rejectedByRule);
		columns.put("409 busy", Answer::busy);
		columns.put("5xx", (answer) -> answer.status() >= 500);
		columns.put("no answer", (answer) -> answer.status() == Answer.NO_ANSWER);
		columns.put("refused", (answer) -> answer.status() == Answer.REFUSED);
		line("### Operations by kind and answer");
		line("");
		line("| operation | sent | " + String.join(" | ", columns.keySet()) + " | longest wait (ms) |");
		line("| --- | ---: |" + " ---: |".repeat(columns.size()) + " ---: |");
		Map<Operation, List<Answer>> byOperation = answers.stream()
			.collect(Collectors.groupingBy(Answer::operation, () -> new EnumMap<>(Operation.class),
					Collectors.toList()));
		byOperation.forEach((operation, ofKind) -> {
			StringBuilder row = new StringBuilder("| " + label(operation) + " | " + ofKind.size() + " |");
			columns.values()
				.forEach((column) -> row.append(" ").append(ofKind.stream().filter(column).count()).append(" |"));
			row.append(" ")
				.append(ofKind.stream().filter(Answer::answered).mapToLong(Answer::waitedMillis).max().orElse(0))
				.append(" |");
			line(row.toString());
		});
		line("");
	}

	private void faults(List<FaultWindow> windows, ChaosChecker.Findings findings) {
		line("### Faults by kind");
		line("");
		line("| fault | injected | recovery min / median / max (ms) | errors laid to it |");
		line("| --- | ---: | --- | --- |");
		Map<FaultKind, List<FaultWindow>> byKind = windows.stream()
			.collect(Collectors.groupingBy(FaultWindow::kind, () -> new EnumMap<>(FaultKind.class),
					Collectors.toList()));
		for (FaultKind kind : FaultKind.values()) {
			List<FaultWindow> ofKind = byKind.getOrDefault(kind, List.of());
			long[] recoveries = ofKind.stream()
				.filter(FaultWindow::recovered)
				.mapToLong(FaultWindow::recoveryMillis)
				.sorted()
				.toArray();
			String recovery = (recoveries.length == 0) ? "-" : recoveries[0] + " / " + recoveries[recoveries.length / 2]
					+ " / " + recoveries[recoveries.length - 1];
			Map<String, Integer> errors = findings.errorsByCause.getOrDefault(kind, new TreeMap<>());
			line("| " + kind.description() + " | " + ofKind.size() + " | " + recovery + " | "
					+ (errors.isEmpty() ? "none"
							: errors.entrySet()
								.stream()
								.map((entry) -> entry.getValue() + " " + entry.getKey())
								.collect(Collectors.joining(", ")))
					+ " |");
		}
		line("");
		long injecting = windows.stream().filter(FaultWindow::recovered).mapToLong(FaultWindow::recoveryMillis).sum();
		line("Time spent inside fault windows: " + Duration.ofMillis(injecting).toSeconds() + " s; the rest is the "
				+ "random pause (" + FaultInjector.PAUSE_MIN_MILLIS + " to "
				+ (FaultInjector.PAUSE_MIN_MILLIS + FaultInjector.PAUSE_SPREAD_MILLIS) + " ms) before each fault. "
				+ "Mean recovery per kind (ms): "
				+ byKind.entrySet()
					.stream()
					.map((entry) -> entry.getKey() + " "
							+ (long) entry.getValue()
								.stream()
								.filter(FaultWindow::recovered)
								.mapToLong(FaultWindow::recoveryMillis)
								.average()
								.orElse(0))
					.collect(Collectors.joining(", "))
				+ ".");
		line("");
	}

	private void failures(List<Answer> answers) {
		line("### Requests without an answer, by cause");
		line("");
		line("| cause | requests |");
		line("| --- | ---: |");
		answers.stream()
			.filter((answer) -> answer.failure() != null)
			.collect(Collectors.groupingBy((answer) -> answer.failure().replaceAll("[0-9]+", "N"), TreeMap::new,
					Collectors.counting()))
			.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.limit(10)
			.forEach((entry) -> line("| " + entry.getKey().replace("|", "\\|") + " | " + entry.getValue() + " |"));
		line("");
	}

	private void faultLog(List<FaultWindow> windows, List<Answer> answers) {
		line("### Fault log");
		line("");
		line("Each fault with its window (milliseconds since the load started), the instances whose requests it may "
				+ "make fail, and the failed requests to those instances while it lasted, its tail included.");
		line("");
		line("| # | fault | what | instances touched | injected at | recovered at | recovery (ms) | 5xx | no answer "
				+ "| refused |");
		line("| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
		int number = 1;
		for (FaultWindow window : windows) {
			List<Answer> inside = answers.stream()
				.filter((answer) -> answer.failed() && window.explains(answer))
				.toList();
			line("| " + number++ + " | " + window.kind() + " | " + window.detail() + " | "
					+ window.instances().stream().sorted().map(String::valueOf).collect(Collectors.joining(", "))
					+ " | " + window.startMillis() + " | " + (window.recovered() ? window.recoveredMillis() : "never")
					+ " | " + (window.recovered() ? window.recoveryMillis() : "-") + " | "
					+ inside.stream().filter((answer) -> answer.status() >= 500).count() + " | "
					+ inside.stream().filter((answer) -> answer.status() == Answer.NO_ANSWER).count() + " | "
					+ inside.stream().filter((answer) -> answer.status() == Answer.REFUSED).count() + " |");
		}
		line("");
	}

	private void list(String title, List<String> items) {
		line("### " + title + ": " + items.size());
		line("");
		items.stream().limit(50).forEach((item) -> line("- " + item));
		if (items.size() > 50) {
			line("- … and " + (items.size() - 50) + " more");
		}
		if (!items.isEmpty()) {
			line("");
		}
	}

	private static String label(Operation operation) {
		return (operation.hostile() ? "hostile: " : "") + operation.name().toLowerCase(Locale.ROOT).replace('_', ' ');
	}

	private void line(String line) {
		this.text.append(line).append('\n');
	}

	/**
	 * Write the report to a file, between the markers {@value #START} and {@value #END}
	 * if the file has them, keeping the rest of it: the page's hand-written text.
	 * @param file the file
	 * @param markdown the report
	 */
	static void save(Path file, String markdown) {
		try {
			Files.createDirectories(file.toAbsolutePath().getParent());
			String page = START + "\n" + markdown + END + "\n";
			if (Files.exists(file)) {
				// The page's own text, before and after the markers, stays as written.
				String existing = Files.readString(file);
				int start = existing.indexOf(START);
				int end = existing.indexOf(END);
				if (start >= 0 && end > start) {
					page = existing.substring(0, start) + page + existing.substring(end + END.length()).stripLeading();
				}
			}
			Files.writeString(file, page);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the report to " + file, ex);
		}
	}

	/**
	 * What the report says of the run itself.
	 *
	 * @param command the command that ran it
	 * @param seed the seed
	 * @param duration how long the load and the faults ran
	 * @param wallClock how long the whole run took
	 * @param environment the machine: cores, memory, load
	 * @param versions PostgreSQL's and PgBouncer's versions, and Java's
	 * @param finishedAt when it finished (UTC)
	 */
	record RunDescription(String command, long seed, Duration duration, Duration wallClock, String environment,
			String versions, String finishedAt) {
	}

}
