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
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * How many runs of a limited job worked at once, from their rows alone: each run's start,
 * and its end, on the database's clock. Counted at each run's start, the only moments the
 * count can grow. A run whose end is unknown (its instance was killed or frozen and never
 * recorded one) counts at its own start only, since it may have stopped at any moment
 * after.
 *
 * <p>
 * More runs at once than permits is a violation, unless leaving out the runs whose
 * instance knew that they lost their permit brings the count back within the permits:
 * after a loss, a run goes on until it learns of it, which is the promise of the
 * invocation scope, not a broken limit. Such an explained excess lasts until enough of
 * the runs working at its start have ended.
 *
 * @author advisory-lock authors
 */
final class LimitedRuns {

	private LimitedRuns() {
	}

	/**
	 * Count the runs at each run's start.
	 * @param runs the runs, in any order
	 * @param permits the limit's permits
	 * @param faultsAt the kinds of fault in progress at a moment
	 * @return what the count found
	 */
	static Counted count(List<Run> runs, int permits, Function<OffsetDateTime, Set<FaultKind>> faultsAt) {
		Counted counted = new Counted(permits);
		for (Run run : runs) {
			OffsetDateTime at = run.startedAt();
			Set<FaultKind> faults = faultsAt.apply(at);
			faults.forEach((kind) -> counted.byFault(kind).runs++);
			List<Run> working = runs.stream()
				.filter((other) -> other == run
						|| (!other.startedAt().isAfter(at) && other.end() != null && other.end().isAfter(at)))
				.toList();
			counted.mostAtOnce = Math.max(counted.mostAtOnce, working.size());
			if (working.size() <= permits) {
				continue;
			}
			List<Run> unaware = working.stream().filter((other) -> !other.lossKnown()).toList();
			Excess excess = new Excess(run, working, unaware.size() <= permits, excessDuration(working, permits, at));
			(excess.explained() ? counted.explained : counted.unexplained).add(excess);
			for (FaultKind kind : faults) {
				ByFault byFault = counted.byFault(kind);
				if (excess.explained()) {
					byFault.explained++;
					byFault.longestExplained = max(byFault.longestExplained, excess.duration());
				}
				else {
					byFault.unexplained++;
				}
			}
		}
		return counted;
	}

	/**
	 * Return how long more runs worked than the permits, from a moment: until as many of
	 * the runs working then have ended as were too many. A run whose end is unknown ends
	 * at once.
	 */
	private static Duration excessDuration(List<Run> working, int permits, OffsetDateTime at) {
		List<OffsetDateTime> ends = working.stream()
			.map((run) -> (run.end() != null) ? run.end() : at)
			.sorted(Comparator.naturalOrder())
			.toList();
		return Duration.between(at, ends.get(working.size() - permits - 1));
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

	/**
	 * A run of the limited job.
	 *
	 * @param id the run's id
	 * @param instance the instance that ran it
	 * @param startedAt when it started
	 * @param finishedAt when its work finished, or {@code null}
	 * @param lostAt when its instance recorded that it lost its permit, or {@code null}
	 * @param lossKnown whether its instance knew that it lost its permit: it recorded
	 * {@code lostAt}, or logged the loss
	 */
	record Run(long id, String instance, OffsetDateTime startedAt, @Nullable OffsetDateTime finishedAt,
			@Nullable OffsetDateTime lostAt, boolean lossKnown) {

		/**
		 * Return when the run stopped working: its work's end, or, for a run that stopped
		 * at a check, when it recorded the loss.
		 * @return the end, or {@code null} when unknown
		 */
		@Nullable OffsetDateTime end() {
			return (this.finishedAt != null) ? this.finishedAt : this.lostAt;
		}

		@Override
		public String toString() {
			return "run " + this.id + " on " + this.instance + " (" + this.startedAt + " to "
					+ ((end() != null) ? end() : "unknown") + ((this.lossKnown) ? ", loss known" : "") + ")";
		}

	}

	/**
	 * More runs at once than permits, at a run's start.
	 *
	 * @param at the run whose start it is
	 * @param working the runs working then
	 * @param explained whether the runs whose instance knew of their loss explain it
	 * @param duration how long it lasted
	 */
	record Excess(Run at, List<Run> working, boolean explained, Duration duration) {

		@Override
		public String toString() {
			return this.working.size() + " runs at once at the start of " + this.at + " for " + this.duration.toMillis()
					+ " ms: " + this.working;
		}

	}

	/**
	 * What the count found, overall and by the kind of fault in progress at each run's
	 * start.
	 */
	static final class Counted {

		final int permits;

		int mostAtOnce;

		final List<Excess> unexplained = new ArrayList<>();

		final List<Excess> explained = new ArrayList<>();

		final Map<FaultKind, ByFault> byFault = new EnumMap<>(FaultKind.class);

		Counted(int permits) {
			this.permits = permits;
		}

		ByFault byFault(FaultKind kind) {
			return this.byFault.computeIfAbsent(kind, (key) -> new ByFault());
		}

		/**
		 * Return the longest explained excess.
		 * @return its duration, zero when there was none
		 */
		Duration longestExplained() {
			return this.explained.stream().map(Excess::duration).reduce(Duration.ZERO, LimitedRuns::max);
		}

	}

	/**
	 * The count among the runs that started while one kind of fault was in progress.
	 */
	static final class ByFault {

		int runs;

		int unexplained;

		int explained;

		Duration longestExplained = Duration.ZERO;

	}

}
