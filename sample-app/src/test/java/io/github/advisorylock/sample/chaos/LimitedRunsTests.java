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
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;

import io.github.advisorylock.sample.chaos.LimitedRuns.Counted;
import io.github.advisorylock.sample.chaos.LimitedRuns.Run;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the chaos checker's count of a limited job's runs, on seeded rows: an excess
 * is found, explained only by runs whose instance knew of their loss, and timed.
 */
class LimitedRunsTests {

	private static final OffsetDateTime ORIGIN = OffsetDateTime.of(2026, 12, 6, 0, 0, 0, 0, ZoneOffset.UTC);

	private static OffsetDateTime at(double seconds) {
		return ORIGIN.plus(Duration.ofMillis((long) (seconds * 1000)));
	}

	private static Run run(long id, double start, @Nullable Double finished, @Nullable Double lost) {
		return new Run(id, "instance-" + id, at(start), (finished != null) ? at(finished) : null,
				(lost != null) ? at(lost) : null, lost != null);
	}

	private static Counted count(List<Run> runs) {
		return LimitedRuns.count(runs, 2, (moment) -> Set.of());
	}

	@Test
	void threeRunsAtOnceWithTwoPermitsAndNoLossKnownIsAnUnexplainedExcess() {
		Counted counted = count(List.of(run(1, 0, 10.0, null), run(2, 1, 5.0, null), run(3, 2, 8.0, null)));
		assertThat(counted.mostAtOnce).isEqualTo(3);
		assertThat(counted.explained).isEmpty();
		assertThat(counted.unexplained).singleElement().satisfies((excess) -> {
			assertThat(excess.at().id()).isEqualTo(3);
			assertThat(excess.working()).extracting(Run::id).containsExactly(1L, 2L, 3L);
			assertThat(excess.duration()).isEqualTo(Duration.ofSeconds(3));
		});
	}

	@Test
	void aRunWhoseInstanceRecordedItsLossExplainsTheExcessForAsLongAsItLasts() {
		// Run 1 lost its permit and learned it at 10 s; run 2 ended at 5 s, which ends
		// the excess.
		Counted counted = count(List.of(run(1, 0, null, 10.0), run(2, 1, 5.0, null), run(3, 2, 8.0, null)));
		assertThat(counted.unexplained).isEmpty();
		assertThat(counted.explained).singleElement()
			.satisfies((excess) -> assertThat(excess.duration()).isEqualTo(Duration.ofSeconds(3)));
		assertThat(counted.longestExplained()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void aKnownLossExplainsOnlyTheOneRunItConcerns() {
		// Four at once with two permits: one known loss leaves three unaware runs.
		Counted counted = count(
				List.of(run(1, 0, null, 10.0), run(2, 1, 9.0, null), run(3, 2, 9.0, null), run(4, 3, 9.0, null)));
		assertThat(counted.unexplained).extracting((excess) -> excess.at().id()).containsExactly(4L);
		assertThat(counted.explained).extracting((excess) -> excess.at().id()).containsExactly(3L);
	}

	@Test
	void aRunWhoseEndIsUnknownCountsAtItsOwnStartOnly() {
		// Run 1's instance was killed: it stopped at some moment after its start.
		Counted counted = count(List.of(run(1, 0, null, null), run(2, 1, 3.0, null), run(3, 2, 4.0, null)));
		assertThat(counted.mostAtOnce).isEqualTo(2);
		assertThat(counted.unexplained).isEmpty();
		assertThat(counted.explained).isEmpty();
	}

	@Test
	void eachExcessIsCountedUnderTheFaultsInProgressAtItsStart() {
		Counted counted = LimitedRuns.count(
				List.of(run(1, 0, null, 10.0), run(2, 1, 5.0, null), run(3, 2, 8.0, null), run(4, 6, 12.0, null)), 2,
				(moment) -> moment.isBefore(at(2)) ? Set.of() : Set.of(FaultKind.TERMINATE_SESSIONS));
		assertThat(counted.byFault).containsOnlyKeys(FaultKind.TERMINATE_SESSIONS);
		LimitedRuns.ByFault terminated = counted.byFault.get(FaultKind.TERMINATE_SESSIONS);
		assertThat(terminated.runs).isEqualTo(2);
		assertThat(terminated.explained).isEqualTo(2);
		assertThat(terminated.unexplained).isZero();
		assertThat(terminated.longestExplained).isEqualTo(Duration.ofSeconds(3));
	}

}
