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
import java.util.Map;

/**
 * The library's share, measured in pairs: a call of the variant and a call of the
 * hand-written lock with the same isolation check, one after the other, in alternating
 * order, block after block. A disturbance of this shared machine that lasts longer than a
 * pair falls on both calls of it alike, so the ratio of a block's totals varies far less
 * than the ratio of two variants measured a fifth of a second apart; the interval over
 * blocks can then tell a few percent apart.
 */
final class PairedShare {

	private PairedShare() {
	}

	/**
	 * Measure each variant against the baseline.
	 * @param baseline the hand-written lock with the same check
	 * @param variants the library's calls
	 * @param blocks how many blocks
	 * @param pairs pairs per block
	 * @return by variant, its ratio to the baseline and the microseconds it adds, one of
	 * each per block
	 */
	static Map<String, Blocks> measure(Rounds.Operation baseline, Map<String, Rounds.Operation> variants, int blocks,
			int pairs) throws Exception {
		Map<String, Blocks> results = new LinkedHashMap<>();
		for (Map.Entry<String, Rounds.Operation> variant : variants.entrySet()) {
			for (int i = 0; i < pairs; i++) {
				baseline.run();
				variant.getValue().run();
			}
			double[] ratios = new double[blocks];
			double[] added = new double[blocks];
			for (int block = 0; block < blocks; block++) {
				long baselineNanos = 0;
				long variantNanos = 0;
				for (int i = 0; i < pairs; i++) {
					boolean baselineFirst = (i % 2 == 0);
					long start = System.nanoTime();
					(baselineFirst ? baseline : variant.getValue()).run();
					long middle = System.nanoTime();
					(baselineFirst ? variant.getValue() : baseline).run();
					long end = System.nanoTime();
					baselineNanos += baselineFirst ? middle - start : end - middle;
					variantNanos += baselineFirst ? end - middle : middle - start;
				}
				ratios[block] = (double) variantNanos / baselineNanos;
				added[block] = (variantNanos - baselineNanos) / 1e3 / pairs;
			}
			results.put(variant.getKey(), new Blocks(ratios, added));
		}
		return results;
	}

	/**
	 * One variant's blocks.
	 *
	 * @param ratios the variant's time over the baseline's, per block
	 * @param microsAdded what the variant added to a call, per block
	 */
	record Blocks(double[] ratios, double[] microsAdded) {

	}

}
