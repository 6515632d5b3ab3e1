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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 5: the capacity model of a serialized lock queue against measurement, with t
 * callers whose transactions hold the lock u milliseconds. The model: throughput = 1000 /
 * u × t per second, average wait = u × (t − 1) / 2 ms.
 */
final class CapacityBenchmark {

	/** Callers. */
	static final int T = 10;

	/** Milliseconds each transaction holds its lock. */
	static final int U = 50;

	private final Settings settings;

	private final AnnotatedCalls annotated;

	CapacityBenchmark(Settings settings, AnnotatedCalls annotated) {
		this.settings = settings;
		this.annotated = annotated;
	}

	/**
	 * One hot key, the callers released together by a barrier: each round's average wait,
	 * from the release to the lock.
	 * @return milliseconds, one value per round
	 */
	double[] burstAverageWait() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(T);
		try {
			burst(executor);
			int rounds = this.settings.rounds(7);
			double[] averages = new double[rounds];
			for (int round = 0; round < rounds; round++) {
				averages[round] = burst(executor);
			}
			return averages;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private double burst(ExecutorService executor) throws Exception {
		long key = ThreadLocalRandom.current().nextLong();
		CyclicBarrier barrier = new CyclicBarrier(T);
		List<Future<Long>> waits = new ArrayList<>();
		for (int i = 0; i < T; i++) {
			waits.add(executor.submit(() -> {
				barrier.await();
				return lockAndHold(key);
			}));
		}
		double sum = 0;
		for (Future<Long> wait : waits) {
			sum += wait.get(60, TimeUnit.SECONDS) / 1e6;
		}
		return sum / T;
	}

	/**
	 * Callers that call again as soon as they return, on one hot key or on a key each.
	 * @param hotKey whether all callers lock the same key
	 * @return the windows of the load
	 */
	List<ClosedLoop.Window> continuous(boolean hotKey) {
		long base = ThreadLocalRandom.current().nextLong();
		return ClosedLoop.run(T, this.settings.duration(1000), this.settings.rounds(3), this.settings.duration(2000),
				(caller) -> lockAndHold(hotKey ? base : base + 1 + caller));
	}

	/**
	 * Lock, hold the lock for u milliseconds, commit.
	 * @return nanoseconds from the call to the lock
	 */
	private long lockAndHold(long key) {
		long start = System.nanoTime();
		long[] wait = new long[1];
		this.annotated.lockAndRun(key, () -> {
			wait[0] = System.nanoTime() - start;
			try {
				Thread.sleep(U);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		});
		return wait[0];
	}

	static double modelThroughput(int lanes) {
		return 1000.0 / U * lanes;
	}

	static double modelAverageWait() {
		return U * (T - 1) / 2.0;
	}

}
