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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The sample-app JVMs of a multi-instance job test, and what such a test asks of them:
 * the instance of a run, the database's clock, the losses the instances logged, a freeze
 * known to catch a run while it still works. Every wait polls the database; none sleeps.
 */
final class JobInstances {

	/**
	 * What the library logs at ERROR when it finds a lock lost: by a heartbeat, a check,
	 * or the release at the call's end.
	 */
	static final String LOST = "(invocation scope) was lost";

	private final List<SampleInstance> instances = new ArrayList<>();

	private final JdbcClient jdbc = JdbcClient.create(TestDatabase.get().dataSource());

	private final Path logs;

	/**
	 * Create the instances of a test, none started yet.
	 * @param logs where the instances' logs go
	 */
	JobInstances(Path logs) {
		this.logs = logs;
	}

	/**
	 * Start instances named {@code instance-0} and on, and wait until each has started.
	 * @param count how many
	 * @param arguments the arguments of each
	 * @throws IOException if one cannot be started
	 */
	void start(int count, String... arguments) throws IOException {
		for (int i = 0; i < count; i++) {
			this.instances.add(SampleInstance.start("instance-" + i, this.logs, arguments));
		}
		this.instances.forEach(SampleInstance::awaitStarted);
	}

	/**
	 * Stop every instance, and wait until PostgreSQL has ended their sessions: it does so
	 * once it reads their closed sockets, which can be a moment after the processes have
	 * gone, and a check of the locks left comes after this.
	 */
	void stop() {
		SampleInstance.stopAll(this.instances);
		new PgLocks(TestDatabase.get().dataSource()).await("the advisory locks of the stopped instances to end",
				List::isEmpty);
	}

	/**
	 * Return the instance that ran a run.
	 * @param run the run
	 * @return its instance
	 */
	SampleInstance of(JobRun run) {
		return this.instances.stream()
			.filter((instance) -> instance.name().equals(run.instance()))
			.findFirst()
			.orElseThrow();
	}

	/**
	 * Return the time by the database's clock, the clock of every row the jobs write.
	 * @return now
	 */
	OffsetDateTime databaseNow() {
		return this.jdbc.sql("SELECT clock_timestamp()").query(OffsetDateTime.class).single();
	}

	/**
	 * Return the lock losses the instances logged, which explain what a test did not
	 * cause: a heartbeat starved for three beats on an overloaded machine.
	 * @return the lines, each with its instance
	 */
	String lossesLogged() {
		return "lock losses logged: " + this.instances.stream()
			.flatMap((instance) -> instance.output()
				.stream()
				.filter((line) -> line.contains(LOST))
				.map((line) -> instance.name() + ": " + line))
			.toList();
	}

	/**
	 * Poll until a fact holds.
	 * @param <T> what the fact gives
	 * @param description the fact, for the failure
	 * @param timeout how long to poll
	 * @param fact a value once the fact holds, empty before
	 * @param state what the failure shows besides the losses logged (the runs)
	 * @return the value
	 */
	<T> T await(String description, Duration timeout, Supplier<Optional<T>> fact, Supplier<?> state) {
		long deadline = System.nanoTime() + timeout.toNanos();
		Optional<T> value = fact.get();
		while (value.isEmpty()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out after " + timeout + " waiting for " + description + "; runs: "
						+ state.get() + "; " + lossesLogged() + "; logs in " + this.logs);
			}
			LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
			value = fact.get();
		}
		return value.get();
	}

	/**
	 * Freeze the instance of a run while the run still works. That it came in time is a
	 * fact, not a guess of how long the test takes: a process runs nothing more once its
	 * SIGSTOP is sent, and a run's work starts after its recorded start, so a run whose
	 * work time had not passed by the database's clock after the signal was frozen in its
	 * work. A run frozen too late (the test starved) is resumed, and the next one frozen.
	 * Either is added to the stopped runs, which a test leaves out of its checks: the
	 * test stopped it.
	 * @param <R> the test's row of a run
	 * @param inProgress waits for a run in progress that is not among the stopped ones
	 * @param workTime how long a run works
	 * @param stopped the runs the test stopped
	 * @param state what a failure shows (the runs)
	 * @return the run, its instance, frozen, and when it was frozen
	 */
	<R extends JobRun> Frozen<R> freezeWhileItWorks(Supplier<R> inProgress, Duration workTime, Set<Long> stopped,
			Supplier<?> state) {
		long deadline = System.nanoTime() + PgLocks.HANG_TIMEOUT.toNanos();
		while (true) {
			R run = inProgress.get();
			SampleInstance instance = of(run);
			instance.suspend();
			OffsetDateTime frozenAt = databaseNow();
			stopped.add(run.id());
			if (frozenAt.isBefore(run.startedAt().plus(workTime))) {
				return new Frozen<>(run, instance, frozenAt);
			}
			instance.resume();
			if (System.nanoTime() > deadline) {
				throw new AssertionError("No run was still working once its instance was frozen, within "
						+ PgLocks.HANG_TIMEOUT + "; runs: " + state.get() + "; logs in " + this.logs);
			}
		}
	}

	/**
	 * Count runs by instance.
	 * @param runs the runs
	 * @return how many each instance ran
	 */
	static Map<String, Long> perInstance(List<? extends JobRun> runs) {
		return runs.stream().collect(Collectors.groupingBy(JobRun::instance, TreeMap::new, Collectors.counting()));
	}

	/**
	 * What every test's row of a run has.
	 */
	interface JobRun {

		long id();

		String instance();

		OffsetDateTime startedAt();

	}

	/**
	 * A run whose instance the test froze while the run worked.
	 *
	 * @param <R> the test's row of a run
	 * @param run the run
	 * @param instance its instance, frozen
	 * @param at when it was frozen, by the database's clock
	 */
	record Frozen<R>(R run, SampleInstance instance, OffsetDateTime at) {

	}

}
