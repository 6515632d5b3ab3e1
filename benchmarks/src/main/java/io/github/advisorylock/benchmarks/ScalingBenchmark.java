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

package io.github.advisorylock.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario 6: throughput and p99 latency of {@code @AdvisoryLocked} transactions (lock,
 * commit) as callers grow, each caller with a random key per call, or all on one hot key;
 * the pool has one connection per caller.
 */
final class ScalingBenchmark {

	/** Callers of the scaling runs. */
	static final int[] CALLERS = { 1, 2, 4, 8, 16, 32 };

	private final Settings settings;

	private final ConfigurableApplicationContext context;

	private final AnnotatedCalls annotated;

	ScalingBenchmark(Settings settings, ConfigurableApplicationContext context, AnnotatedCalls annotated) {
		this.settings = settings;
		this.context = context;
		this.annotated = annotated;
	}

	/**
	 * Run every point, distinct and hot side by side at each number of callers.
	 * @return by callers, the points
	 */
	Map<Integer, Point> run() {
		Map<Integer, Point> points = new LinkedHashMap<>();
		for (int callers : CALLERS) {
			BenchmarkApplication.resizePool(this.context, callers);
			long hot = ThreadLocalRandom.current().nextLong();
			List<ClosedLoop.Window> distinct = load(callers, (caller) -> {
				this.annotated.lockOne(ThreadLocalRandom.current().nextLong());
				return 0;
			});
			List<ClosedLoop.Window> oneKey = load(callers, (caller) -> {
				this.annotated.lockOne(hot);
				return 0;
			});
			points.put(callers, new Point(ClosedLoop.throughputs(distinct), p99s(distinct),
					ClosedLoop.throughputs(oneKey), p99s(oneKey)));
		}
		BenchmarkApplication.resizePool(this.context, BenchmarkApplication.MAX_POOL_SIZE);
		return points;
	}

	private List<ClosedLoop.Window> load(int callers, ClosedLoop.Call call) {
		return ClosedLoop.run(callers, this.settings.duration(500), this.settings.rounds(5),
				this.settings.duration(600), call);
	}

	private static double[] p99s(List<ClosedLoop.Window> windows) {
		return windows.stream().mapToDouble((window) -> window.latencyPercentile(99)).toArray();
	}

	/**
	 * The windows of one number of callers.
	 *
	 * @param distinctThroughput calls per second, a key per call
	 * @param distinctP99 milliseconds, a key per call
	 * @param hotThroughput calls per second, one key
	 * @param hotP99 milliseconds, one key
	 */
	record Point(double[] distinctThroughput, double[] distinctP99, double[] hotThroughput, double[] hotP99) {

	}

}
