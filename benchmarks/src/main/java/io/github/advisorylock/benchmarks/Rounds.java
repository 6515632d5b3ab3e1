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
import java.util.Random;

/**
 * Measures the cost of single-threaded operations side by side: every variant is warmed
 * up, then each round runs every variant for about the same time, in an order shuffled
 * anew each round, so that a disturbance of the machine falls on all of them alike and
 * ratios can be taken within a round.
 */
final class Rounds {

	private Rounds() {
	}

	/**
	 * Measure the variants.
	 * @param variants the operations, by name
	 * @param rounds how many rounds
	 * @param warmup how long each variant runs before the first round
	 * @param roundLength about how long each variant runs in one round
	 * @return each variant's microseconds per operation, one value per round
	 */
	static Map<String, double[]> interleaved(Map<String, Operation> variants, int rounds, Duration warmup,
			Duration roundLength) {
		List<String> names = List.copyOf(variants.keySet());
		int[] operationsPerRound = new int[names.size()];
		for (int i = 0; i < names.size(); i++) {
			Operation operation = variants.get(names.get(i));
			long start = System.nanoTime();
			int done = 0;
			while (System.nanoTime() - start < warmup.toNanos() || done < 3) {
				run(operation, names.get(i));
				done++;
			}
			double nanosPerOperation = (double) (System.nanoTime() - start) / done;
			operationsPerRound[i] = (int) Math.max(3, roundLength.toNanos() / nanosPerOperation);
		}
		Map<String, double[]> micros = new LinkedHashMap<>();
		names.forEach((name) -> micros.put(name, new double[rounds]));
		List<Integer> order = new ArrayList<>();
		for (int i = 0; i < names.size(); i++) {
			order.add(i);
		}
		Random random = new Random(42);
		for (int round = 0; round < rounds; round++) {
			// A new order every round: a variant must not always follow the same one (one
			// that writes rows, say).
			Collections.shuffle(order, random);
			for (int i : order) {
				Operation operation = variants.get(names.get(i));
				long start = System.nanoTime();
				for (int k = 0; k < operationsPerRound[i]; k++) {
					run(operation, names.get(i));
				}
				micros.get(names.get(i))[round] = (System.nanoTime() - start) / 1e3 / operationsPerRound[i];
			}
		}
		return micros;
	}

	/**
	 * Return the per-round ratios of one variant to another.
	 * @param values the variant's values
	 * @param baseline the baseline's values of the same rounds
	 * @return the ratios
	 */
	static double[] ratios(double[] values, double[] baseline) {
		double[] ratios = new double[values.length];
		for (int i = 0; i < values.length; i++) {
			ratios[i] = values[i] / baseline[i];
		}
		return ratios;
	}

	/**
	 * Return the difference of two variants within each round.
	 * @param values the variant's value per round
	 * @param baseline the baseline's value per round
	 * @return {@code values[i] - baseline[i]} for each round
	 */
	static double[] differences(double[] values, double[] baseline) {
		double[] differences = new double[values.length];
		for (int i = 0; i < values.length; i++) {
			differences[i] = values[i] - baseline[i];
		}
		return differences;
	}

	private static void run(Operation operation, String name) {
		try {
			operation.run();
		}
		catch (Exception ex) {
			throw new IllegalStateException(name + " failed", ex);
		}
	}

	/**
	 * One operation to measure.
	 */
	@FunctionalInterface
	interface Operation {

		/**
		 * Run once.
		 * @throws Exception on failure, which ends the benchmark
		 */
		void run() throws Exception;

	}

}
