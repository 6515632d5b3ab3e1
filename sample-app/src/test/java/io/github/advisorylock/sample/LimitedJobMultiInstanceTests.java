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
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.advisorylock.sample.JobInstances.Frozen;
import io.github.advisorylock.sample.JobInstances.JobRun;
import io.github.advisorylock.sample.jobs.PartnerFeedSync;
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
 * Three sample-app processes that all schedule the {@code sync-partner-feed} job, whose
 * limit has two permits, against one PostgreSQL: at no moment do more than two runs work,
 * except a run whose instance knew that it lost its permit; two do at once; and an
 * instance frozen (SIGSTOP) or killed (SIGKILL) while its run works hands its permit on,
 * so that the two instances left run the job side by side.
 *
 * <p>
 * Each run works for six periods, so that every instance tries the job again and again
 * while two runs work: without the limit, three would work at once. Every time compared
 * is the database's clock ({@code job_runs}), never a JVM's, and the test waits for rows,
 * never for a time.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
@DisabledOnOs(value = OS.WINDOWS, disabledReason = "freezes an instance with kill -STOP")
class LimitedJobMultiInstanceTests {

	private static final int INSTANCES = 3;

	private static final int PERMITS = 2;

	private static final Duration PERIOD = Duration.ofMillis(500);

	private static final Duration WORK_TIME = PERIOD.multipliedBy(6);

	/**
	 * PostgreSQL ends a lock session silent for three heartbeats, 3 s: a frozen run's
	 * permit is free again well within the test's patience.
	 */
	private static final Duration HEARTBEAT = Duration.ofSeconds(1);

	private static final int STEADY_RUNS = 6;

	private static final Duration PATIENCE = WORK_TIME.multipliedBy(STEADY_RUNS).plus(PgLocks.HANG_TIMEOUT);

	private static final String RUNS = "SELECT id, instance, started_at, finished_at, lost_at FROM job_runs "
			+ "WHERE job = ? ORDER BY started_at";

	private final JdbcClient jdbc = JdbcClient.create(TestDatabase.get().dataSource());

	private final JobInstances instances = new JobInstances(Path.of("target", "limited-job"));

	/**
	 * Runs whose instance the test froze or killed while they worked: their permit is
	 * handed on while their row still says they work, and their instance can record the
	 * loss only once it is resumed.
	 */
	private final Set<Long> stopped = new HashSet<>();

	@BeforeEach
	void startInstances() throws IOException {
		// The schema once, here: three instances running CREATE TABLE IF NOT EXISTS at
		// the same moment can collide.
		new ResourceDatabasePopulator(new ClassPathResource("schema.sql")).execute(TestDatabase.get().dataSource());
		this.jdbc.sql("DELETE FROM job_runs WHERE job = ?").param(PartnerFeedSync.JOB).update();
		this.instances.start(INSTANCES, "--sample.jobs.partner-sync.enabled=true",
				"--sample.jobs.partner-sync.permits=" + PERMITS,
				"--sample.jobs.partner-sync.period=" + PERIOD.toMillis() + "ms",
				"--sample.jobs.partner-sync.work-time=" + WORK_TIME.toMillis() + "ms",
				"--advisory-lock.invocation.heartbeat=" + HEARTBEAT.toMillis() + "ms");
	}

	@AfterEach
	void stopInstances() {
		// Before NoAdvisoryLocksLeft, which runs after this method, checks what is left.
		this.instances.stop();
	}

	@Test
	void atMostTwoRunsWorkAtOnceAndAFrozenOrKilledInstanceHandsItsPermitOn() {
		awaitRuns(STEADY_RUNS + " finished runs, two of them at once",
				(runs) -> runs.stream().filter(Run::finished).count() >= STEADY_RUNS && mostAtOnce(runs) == PERMITS);

		// SIGSTOP: the instance's sockets stay open and silent, until PostgreSQL's
		// idle_in_transaction_session_timeout of three heartbeats ends its lock session.
		Frozen<Run> freeze = freezeWhileItWorks();
		Run frozenRun = freeze.run();
		SampleInstance frozen = freeze.instance();
		OffsetDateTime frozenAt = freeze.at();
		// Two runs at once of the two instances left: the frozen run's permit was taken
		// again while its row still says it works.
		awaitRuns("two runs at once that started after the freeze",
				(runs) -> mostAtOnce(startedAfter(runs, frozenAt)) == PERMITS);
		// Resumed, the frozen instance learns that it lost the permit: its run's check
		// (after its work) or its release reports it, and the schedule records it.
		frozen.resume();
		Run lost = awaitRuns("the frozen run recorded lost by its instance",
				(runs) -> runs.stream().anyMatch((run) -> run.id() == frozenRun.id() && run.lostAt() != null))
			.stream()
			.filter((run) -> run.id() == frozenRun.id())
			.findFirst()
			.orElseThrow();

		// SIGKILL: the kernel closes the instance's sockets, and PostgreSQL ends its lock
		// session, permit and all.
		// Frozen first, so that the run is known to be still working when it is killed.
		Frozen<Run> kill = freezeWhileItWorks();
		Run killedRun = kill.run();
		kill.instance().kill();
		OffsetDateTime killedAt = this.instances.databaseNow();
		List<Run> all = awaitRuns("two runs at once that started after the kill",
				(runs) -> mostAtOnce(startedAfter(runs, killedAt)) == PERMITS);
		assertThat(all.stream().filter((run) -> run.id() == killedRun.id())).singleElement()
			.satisfies((run) -> assertThat(run.finishedAt()).as("the killed run's end").isNull());
		System.out.println("== limited job: " + all.size() + " runs " + JobInstances.perInstance(all) + ", at most "
				+ mostAtOnce(all) + " at once (" + PERMITS + " permits, " + INSTANCES + " instances); the frozen "
				+ "run " + lost.id() + " recorded lost " + Duration.between(lost.startedAt(), lost.lostAt()).toMillis()
				+ " ms after its start, and two at once again after the freeze and after the kill");
	}

	/**
	 * Assert that at no run's start more runs worked than the job has permits, leaving
	 * out the runs whose instance knew that they lost their permit, and those the test
	 * froze or killed (a frozen one is recorded lost once resumed).
	 */
	private void assertAtMostPermitsAtOnce(List<Run> runs) {
		for (Run run : runs) {
			assertThat(workingAt(runs, run.startedAt()))
				.as("runs working at the start of %s, among %s; %s", run, runs, this.instances.lossesLogged())
				.hasSizeLessThanOrEqualTo(PERMITS);
		}
	}

	private int mostAtOnce(List<Run> runs) {
		return runs.stream().mapToInt((run) -> workingAt(runs, run.startedAt()).size()).max().orElse(0);
	}

	/**
	 * Return the counted runs that worked at a moment: started by then, and finished
	 * after it or still working. Both times come from {@code clock_timestamp()} inside
	 * the run, while its permit is held.
	 */
	private List<Run> workingAt(List<Run> runs, OffsetDateTime moment) {
		return runs.stream()
			.filter((run) -> run.lostAt() == null && !this.stopped.contains(run.id()))
			.filter((run) -> !run.startedAt().isAfter(moment)
					&& (run.finishedAt() == null || run.finishedAt().isAfter(moment)))
			.toList();
	}

	private static List<Run> startedAfter(List<Run> runs, OffsetDateTime moment) {
		return runs.stream().filter((run) -> run.startedAt().isAfter(moment)).toList();
	}

	/**
	 * Freeze the instance of a run while the run still works (see
	 * {@link JobInstances#freezeWhileItWorks}).
	 * @return the run, its instance, frozen, and when it was frozen
	 */
	private Frozen<Run> freezeWhileItWorks() {
		return this.instances.freezeWhileItWorks(() -> await("a run in progress",
				() -> runs().stream()
					.filter((candidate) -> !candidate.finished() && candidate.lostAt() == null
							&& !this.stopped.contains(candidate.id()))
					.findFirst()),
				WORK_TIME, this.stopped, this::runs);
	}

	/**
	 * Poll the database until the job's runs are as the test waits for, asserting on
	 * every poll that no more runs worked at once than the job has permits: an excess
	 * fails at once, not as a timeout.
	 */
	private List<Run> awaitRuns(String description, Predicate<List<Run>> condition) {
		return await(description, () -> {
			List<Run> runs = runs();
			assertAtMostPermitsAtOnce(runs);
			return Optional.of(runs).filter(condition);
		});
	}

	private <T> T await(String description, Supplier<Optional<T>> fact) {
		return this.instances.await(description, PATIENCE, fact, this::runs);
	}

	private List<Run> runs() {
		return this.jdbc.sql(RUNS).param(PartnerFeedSync.JOB).query(Run.class).list();
	}

	/**
	 * A row of {@code job_runs}.
	 *
	 * @param id the run's id
	 * @param instance the instance that ran it
	 * @param startedAt when it started
	 * @param finishedAt when it finished, or {@code null}
	 * @param lostAt when its instance learned that it lost its permit, or {@code null}
	 */
	record Run(long id, String instance, OffsetDateTime startedAt, @Nullable OffsetDateTime finishedAt,
			@Nullable OffsetDateTime lostAt) implements JobRun {

		boolean finished() {
			return this.finishedAt != null;
		}

	}

}
