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

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario 6: throughput and p99 latency of a transaction that takes one lock and
 * commits, as closed-loop callers grow from 1 to 32, each on a random key per call, or
 * all on one hot key; the pool has one connection per caller. Four ways side by side:
 * {@code @AdvisoryLocked}, {@code AdvisoryLockOperations.lock}, the hand-written lock
 * with the same checks on the same pool, and {@link Pgbench} against the same server,
 * where it is installed. Every round runs each way for a warm-up and one window, in an
 * order shuffled anew each round.
 */
final class ScalingBenchmark {

	/** Callers of the scaling runs. */
	static final int[] CALLERS = { 1, 2, 4, 8, 16, 32 };

	static final String ANNOTATION = "`@AdvisoryLocked`";

	static final String OPERATIONS = "`AdvisoryLockOperations.lock`";

	static final String HAND_WRITTEN = "hand-written";

	static final String PGBENCH = "pgbench";

	private final Settings settings;

	private final ConfigurableApplicationContext context;

	private final AnnotatedCalls annotated;

	private final HandWrittenCalls handWritten;

	private final Pgbench pgbench;

	/**
	 * Create the scenario.
	 * @param pgbench pgbench, or {@code null} where it is not installed
	 */
	ScalingBenchmark(Settings settings, ConfigurableApplicationContext context, AnnotatedCalls annotated,
			HandWrittenCalls handWritten, Pgbench pgbench) {
		this.settings = settings;
		this.context = context;
		this.annotated = annotated;
		this.handWritten = handWritten;
		this.pgbench = pgbench;
	}

	/**
	 * Run this scenario alone and print its section, writing nothing: for work on the
	 * scaling of the lock's path, measured before and after
	 * ({@code -Dbenchmarks.main=io.github.advisorylock.benchmarks.ScalingBenchmark}).
	 * @param args none
	 */
	public static void main(String[] args) throws Exception {
		Benchmarks.scalingOnly();
	}

	/**
	 * Run every point, distinct and hot side by side at each number of callers.
	 * @return by callers, the points
	 */
	Map<Integer, Point> run() throws Exception {
		Map<Integer, Point> points = new LinkedHashMap<>();
		for (int callers : CALLERS) {
			BenchmarkApplication.resizePool(this.context, callers);
			points.put(callers, new Point(measure(callers, false), measure(callers, true)));
		}
		BenchmarkApplication.resizePool(this.context, BenchmarkApplication.MAX_POOL_SIZE);
		return points;
	}

	/**
	 * Measure every way at one number of callers.
	 * @return by way, its windows, one a round
	 */
	private Map<String, List<ClosedLoop.Window>> measure(int callers, boolean hot) throws Exception {
		Map<String, Load> loads = loads(hot);
		Map<String, List<ClosedLoop.Window>> windows = new LinkedHashMap<>();
		loads.keySet().forEach((way) -> windows.put(way, new ArrayList<>()));
		Duration warmup = warmup(this.settings);
		Duration window = window(this.settings);
		List<String> order = new ArrayList<>(loads.keySet());
		for (int round = 0; round < this.settings.rounds(5); round++) {
			Collections.shuffle(order);
			for (String way : order) {
				windows.get(way).add(loads.get(way).run(callers, warmup, window));
			}
		}
		return windows;
	}

	/** How long each way runs before its window. */
	static Duration warmup(Settings settings) {
		return settings.duration(200);
	}

	/** How long each way's window lasts. */
	static Duration window(Settings settings) {
		return settings.duration(600);
	}

	private Map<String, Load> loads(boolean hot) {
		// The annotation's key is derived from this value; the hand-written lock takes it
		// as it is. Each way's hot key differs, and they never run at once.
		long hotKey = ThreadLocalRandom.current().nextLong();
		Map<String, Load> loads = new LinkedHashMap<>();
		loads.put(ANNOTATION, jvm((caller) -> this.annotated.lockOne(hot ? hotKey : random())));
		loads.put(OPERATIONS, jvm((caller) -> this.handWritten.operations(hot ? hotKey : random())));
		loads.put(HAND_WRITTEN, jvm((caller) -> this.handWritten.fullyCheckedFloor(hot ? hotKey : random())));
		if (this.pgbench != null) {
			loads.put(PGBENCH, (callers, warmup, window) -> this.pgbench.run(callers, hot, warmup, window));
		}
		return loads;
	}

	private static Load jvm(Caller call) {
		return (callers, warmup, window) -> ClosedLoop.run(callers, warmup, 1, window, (caller) -> {
			call.call(caller);
			return 0;
		}).get(0);
	}

	private static long random() {
		return ThreadLocalRandom.current().nextLong();
	}

	/**
	 * One way of locking, run by closed-loop callers.
	 */
	@FunctionalInterface
	private interface Load {

		ClosedLoop.Window run(int callers, Duration warmup, Duration window) throws Exception;

	}

	/**
	 * What one caller of a way does once.
	 */
	@FunctionalInterface
	private interface Caller {

		void call(int caller);

	}

	/**
	 * The windows of one number of callers, by way.
	 *
	 * @param distinct a key per call
	 * @param hot one key
	 */
	record Point(Map<String, List<ClosedLoop.Window>> distinct, Map<String, List<ClosedLoop.Window>> hot) {

	}

}
