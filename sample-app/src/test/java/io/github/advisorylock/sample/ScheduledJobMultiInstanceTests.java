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

package io.github.advisorylock.sample;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.advisorylock.sample.JobInstances.Frozen;
import io.github.advisorylock.sample.JobInstances.JobRun;
import io.github.advisorylock.sample.jobs.StaleRequestExpiry;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three sample-app processes that all schedule the {@code expire-stale-requests} job
 * against one PostgreSQL: runs never overlap and start at most once per period; when the
 * instance running the job is killed, or frozen, another one runs it within a bound;
 * nothing stays locked.
 *
 * <p>
 * Each run works for two periods, so that without the advisory lock another instance's
 * claim would succeed while a run still works, and runs would overlap; and for longer
 * than the dead-man switch, so that only its heartbeats keep its lock. With runs that
 * long the claim never refuses one: {@code StaleRequestExpiryTests} tests it in-process.
 * Every time compared is the database's clock ({@code job_runs}), never a JVM's.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
@DisabledOnOs(value = OS.WINDOWS, disabledReason = "freezes an instance with kill -STOP")
class ScheduledJobMultiInstanceTests {

	private static final int INSTANCES = 3;

	private static final Duration PERIOD = Duration.ofSeconds(2);

	private static final Duration WORK_TIME = PERIOD.multipliedBy(2);

	/**
	 * PostgreSQL ends a lock session that has been silent for three heartbeats, 3 s, less
	 * than a run's work. Not shorter: a heartbeat two beats late, a starved thread of
	 * four JVMs on two cores busy with other work too, would lose a lock while nothing is
	 * wrong.
	 */
	private static final Duration HEARTBEAT = Duration.ofSeconds(1);

	/**
	 * What a takeover may take beyond its bound: a few JDBC round trips and thread
	 * scheduling, each of which can take seconds where four JVMs and PostgreSQL share two
	 * cores with other work. Still far below the dead-man switch of the default heartbeat
	 * (30 s), which a takeover bound by it would exceed.
	 */
	private static final Duration SLACK = Duration.ofSeconds(10);

	/**
	 * Five runs of two periods each: at least 10 periods, at each of which another
	 * instance's claim would overlap the run in progress without the lock.
	 */
	private static final int STEADY_RUNS = 5;

	private static final String RUNS = "SELECT id, instance, claimed_at, started_at, finished_at FROM job_runs "
			+ "WHERE job = ? ORDER BY started_at";

	private final JdbcClient jdbc = JdbcClient.create(TestDatabase.get().dataSource());

	private final JobInstances instances = new JobInstances(Path.of("target", "scheduled-job"));

	/**
	 * Runs whose instance was killed or frozen while they ran: they lost the lock, and
	 * may end at any time.
	 */
	private final Set<Long> lost = new HashSet<>();

	private final UUID staleRequest = UUID.randomUUID();

	private final UUID freshRequest = UUID.randomUUID();

	@BeforeEach
	void startInstances() throws IOException {
		// The schema once, here: three instances running CREATE TABLE IF NOT EXISTS at
		// the same moment can collide.
		new ResourceDatabasePopulator(new ClassPathResource("schema.sql")).execute(TestDatabase.get().dataSource());
		// No claim or run of an earlier test: the first period starts with this test.
		this.jdbc.sql("DELETE FROM job_runs WHERE job = ?").param(StaleRequestExpiry.JOB).update();
		this.jdbc.sql("DELETE FROM job_claims WHERE job = ?").param(StaleRequestExpiry.JOB).update();
		UUID user = UUID.randomUUID();
		this.jdbc.sql("INSERT INTO users (id, plan) VALUES (?, 'pro')").param(user).update();
		this.jdbc
			.sql("INSERT INTO setup_requests (id, user_id, status, created_at) VALUES "
					+ "(?, ?, 'pending', now() - interval '2 hours'), (?, ?, 'pending', now() - interval '30 minutes')")
			.params(this.staleRequest, user, this.freshRequest, user)
			.update();
		this.instances.start(INSTANCES, "--sample.jobs.expiry.period=" + PERIOD.toMillis() + "ms",
				"--sample.jobs.expiry.work-time=" + WORK_TIME.toMillis() + "ms",
				"--advisory-lock.invocation.heartbeat=" + HEARTBEAT.toMillis() + "ms");
	}

	@AfterEach
	void stopInstances() {
		// Before NoAdvisoryLocksLeft, which runs after this method, checks what is left.
		this.instances.stop();
	}

	@Test
	void runsOneAtATimeAtMostOncePerPeriodAndMovesOnWhenItsInstanceDiesOrFreezes() {
		List<Run> steady = awaitRuns(STEADY_RUNS + " finished runs",
				PERIOD.plus(WORK_TIME).multipliedBy(STEADY_RUNS).plus(PgLocks.HANG_TIMEOUT),
				(runs) -> runs.stream().filter(Run::finished).count() >= STEADY_RUNS);
		assertOneAtATime(steady);
		assertAtMostOncePerPeriod(steady);

		// SIGKILL: the kernel closes the instance's sockets, and PostgreSQL ends its lock
		// session at once. Frozen first, so that the run is known to be still working
		// when it is killed.
		Frozen<Run> killedWhileWorking = freezeWhileItWorks();
		Run killed = killedWhileWorking.run();
		killedWhileWorking.instance().kill();
		OffsetDateTime killedAt = this.instances.databaseNow();
		Run afterKill = awaitRunAfter(killed);
		assertThat(run(killed.id()).finishedAt()).as("the killed instance's run").isNull();
		Duration killTakeover = Duration.between(killedAt, afterKill.startedAt());
		// The next claim succeeds a period after the killed run's claim, made before the
		// kill, at the latest; and every instance tries once a period.
		Duration killBound = PERIOD.multipliedBy(2).plus(SLACK);
		assertThat(killTakeover).as("from the kill to the next run's start").isLessThanOrEqualTo(killBound);

		// SIGSTOP: the instance's sockets stay open and silent, until PostgreSQL's
		// idle_in_transaction_session_timeout of three heartbeats ends its lock session.
		Frozen<Run> frozenWhileWorking = freezeWhileItWorks();
		Run frozenRun = frozenWhileWorking.run();
		SampleInstance frozen = frozenWhileWorking.instance();
		OffsetDateTime frozenAt = frozenWhileWorking.at();
		Run afterFreeze = awaitRunAfter(frozenRun);
		assertThat(run(frozenRun.id()).finishedAt()).as("the frozen instance's run, while it is frozen").isNull();
		Duration freezeTakeover = Duration.between(frozenAt, afterFreeze.startedAt());
		// Three heartbeats until PostgreSQL ends the session (longer than a period, so
		// the next claim succeeds by then), then at most a period until another instance
		// tries.
		Duration freezeBound = HEARTBEAT.multipliedBy(3).plus(PERIOD).plus(SLACK);
		assertThat(freezeTakeover).as("from the freeze to the next run's start").isLessThanOrEqualTo(freezeBound);

		// Resumed, the frozen instance learns that its lock is gone: checkHeld() reports
		// a lock with no heartbeat confirmed for three of them, and the heartbeat finds
		// the session ended, or, should the run return first, the release does (both
		// ERROR). Frozen during its work, the run stops at checkHeld(). (One frozen after
		// that point would update and finish while another instance runs the job: there
		// is no fencing.)
		int before = frozen.output().size();
		frozen.resume();
		OffsetDateTime resumedAt = this.instances.databaseNow();
		String noticed = frozen.awaitOutput(before, "that its lock session had ended",
				(line) -> line.contains(JobInstances.LOST));
		List<Run> all = awaitRuns("2 finished runs after the resume",
				PERIOD.plus(WORK_TIME).multipliedBy(2).plus(PgLocks.HANG_TIMEOUT),
				(runs) -> runs.stream()
					.filter((run) -> run.finished() && run.startedAt().isAfter(resumedAt))
					.count() >= 2);
		assertThat(run(frozenRun.id()).finishedAt()).as("the frozen run, stopped at checkHeld()").isNull();

		assertOneAtATime(all);
		assertAtMostOncePerPeriod(all);
		assertThat(all.stream().map(Run::instance).distinct()).as("instances that ran the job").hasSizeGreaterThan(1);
		assertThat(status(this.staleRequest)).isEqualTo("expired");
		assertThat(status(this.freshRequest)).isEqualTo("pending");
		System.out.println("== scheduled job: " + all.size() + " runs " + JobInstances.perInstance(all) + "; next run "
				+ killTakeover.toMillis() + " ms after a SIGKILL (bound " + killBound.toMillis() + " ms), "
				+ freezeTakeover.toMillis() + " ms after a SIGSTOP (bound " + freezeBound.toMillis() + " ms); "
				+ "resumed instance logged: " + noticed.strip());
	}

	/**
	 * Assert that each run but the lost ones started after the previous one finished.
	 * Both times come from {@code clock_timestamp()}: a run finishes before it returns,
	 * its lock is released after that, and the next run starts after taking the lock, so
	 * no tolerance is needed.
	 */
	private void assertOneAtATime(List<Run> runs) {
		Run previous = null;
		for (Run run : runs) {
			if (this.lost.contains(run.id())) {
				continue;
			}
			if (previous != null) {
				assertThat(previous.finishedAt())
					.as("%s must have finished before %s started; %s", previous, run, this.instances.lossesLogged())
					.isNotNull()
					.isBeforeOrEqualTo(run.startedAt());
			}
			previous = run;
		}
	}

	/**
	 * Assert that consecutive claims are at least a period apart: the claim's own
	 * condition, on the values it wrote, so exactly, lost runs included. Run starts are
	 * not compared: a run starts some time after its claim, and that delay differs
	 * between runs.
	 */
	private static void assertAtMostOncePerPeriod(List<Run> runs) {
		List<Run> byClaim = runs.stream().sorted(Comparator.comparing(Run::claimedAt)).toList();
		for (int i = 1; i < byClaim.size(); i++) {
			assertThat(Duration.between(byClaim.get(i - 1).claimedAt(), byClaim.get(i).claimedAt()))
				.as("claims of %s and %s", byClaim.get(i - 1), byClaim.get(i))
				.isGreaterThanOrEqualTo(PERIOD);
		}
	}

	/**
	 * Freeze the instance of a run while the run still works, before its
	 * {@code checkHeld()} (see {@link JobInstances#freezeWhileItWorks}).
	 * @return the run, its instance, frozen, and when it was frozen
	 */
	private Frozen<Run> freezeWhileItWorks() {
		return this.instances.freezeWhileItWorks(this::awaitRunInProgress, WORK_TIME, this.lost, this::runs);
	}

	/**
	 * Wait for a run in progress that started less than half its work time ago, so that
	 * it most likely still works when the test freezes its instance a moment later.
	 */
	private Run awaitRunInProgress() {
		return await("a run in progress", PgLocks.HANG_TIMEOUT,
				() -> this.jdbc
					.sql("SELECT id FROM job_runs WHERE job = ? AND finished_at IS NULL "
							+ "AND started_at > clock_timestamp() - ?::interval ORDER BY started_at DESC")
					.params(StaleRequestExpiry.JOB, WORK_TIME.dividedBy(2).toString())
					.query(Long.class)
					.list()
					.stream()
					.filter((id) -> !this.lost.contains(id))
					.findFirst()
					.map(this::run));
	}

	/**
	 * Wait for the first run that started after a given one.
	 */
	private Run awaitRunAfter(Run earlier) {
		return await("a run after " + earlier, PgLocks.HANG_TIMEOUT,
				() -> runs().stream()
					.filter((run) -> run.id() != earlier.id() && run.startedAt().isAfter(earlier.startedAt()))
					.findFirst());
	}

	private List<Run> awaitRuns(String description, Duration timeout, Predicate<List<Run>> condition) {
		return await(description, timeout, () -> Optional.of(runs()).filter(condition));
	}

	private <T> T await(String description, Duration timeout, Supplier<Optional<T>> fact) {
		return this.instances.await(description, timeout, fact, this::runs);
	}

	private List<Run> runs() {
		return this.jdbc.sql(RUNS).param(StaleRequestExpiry.JOB).query(Run.class).list();
	}

	private Run run(long id) {
		return runs().stream().filter((run) -> run.id() == id).findFirst().orElseThrow();
	}

	private String status(UUID request) {
		return this.jdbc.sql("SELECT status FROM setup_requests WHERE id = ?")
			.param(request)
			.query(String.class)
			.single();
	}

	/**
	 * A row of {@code job_runs}.
	 *
	 * @param id the run's id
	 * @param instance the instance that ran it
	 * @param claimedAt its claim of the period
	 * @param startedAt when it started
	 * @param finishedAt when it finished, or {@code null}
	 */
	record Run(long id, String instance, OffsetDateTime claimedAt, OffsetDateTime startedAt,
			@Nullable OffsetDateTime finishedAt) implements JobRun {

		boolean finished() {
			return this.finishedAt != null;
		}

	}

}
