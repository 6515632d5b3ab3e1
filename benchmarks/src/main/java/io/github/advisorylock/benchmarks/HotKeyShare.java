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
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongConsumer;

import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The annotation's throughput on one hot key over the hand-written lock's, sharper than
 * section 6 can tell it, and taken apart. Four ways: {@code @AdvisoryLocked}; the
 * library's statement written by hand; the cheapest bounded wait written by hand
 * ({@code lock_timeout} set in the lock's statement and left set, as the article's
 * {@code SET LOCAL} leaves it); the plain lock, unbounded. Their ratios say what the
 * library's code costs (the annotation over its statement), what keeping the
 * transaction's {@code lock_timeout} costs (the library's statement over the cheapest
 * bounded wait), and what a bound costs at all (that over the plain lock). The annotation
 * waits at once only for a key found held lately: with one caller it sends its try, and
 * from two on the wait, with a try once a second. Many short blocks, each running the
 * four in a shuffled order, one right after another: a disturbance of this shared machine
 * that lasts longer than a block falls on all four alike, so ratios within a block vary
 * far less than throughputs do, and the interval over blocks can tell a few percent
 * apart. Prints two tables and writes nothing:
 * {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pbenchmarks -Dbenchmarks.main=io.github.advisorylock.benchmarks.HotKeyShare}.
 */
public final class HotKeyShare {

	private static final int[] CALLERS = ScalingBenchmark.CALLERS;

	private static final String ANNOTATION = "`@AdvisoryLocked`";

	private static final String STATEMENT = "its statement by hand";

	private static final String BOUNDED = "bound left set, by hand";

	private static final String PLAIN = "unbounded, by hand";

	private HotKeyShare() {
	}

	/**
	 * Measure at each number of callers, and print what was found.
	 * @param args ignored
	 */
	public static void main(String[] args) throws Exception {
		Settings settings = Settings.fromSystemProperties();
		System.setProperty(TestDatabase.DURABLE_PROPERTY, Boolean.toString(settings.durable()));
		int blocks = settings.count(40);
		Duration warmup = settings.duration(100);
		Duration window = settings.duration(300);
		Table throughput = new Table("callers (= pool size)", ANNOTATION + ", calls/s", STATEMENT + ", calls/s",
				BOUNDED + ", calls/s", PLAIN + ", calls/s");
		Table ratios = new Table("callers (= pool size)", ANNOTATION + " ÷ " + PLAIN,
				ANNOTATION + " ÷ " + BOUNDED + " (the same bound)", ANNOTATION + " ÷ " + STATEMENT + " (the code)",
				STATEMENT + " ÷ " + BOUNDED + " (keeping lock_timeout)", BOUNDED + " ÷ " + PLAIN + " (a bound)");
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(TestDatabase.get())) {
			AnnotatedCalls annotated = context.getBean(AnnotatedCalls.class);
			HandWrittenCalls handWritten = context.getBean(HandWrittenCalls.class);
			for (int callers : CALLERS) {
				BenchmarkApplication.resizePool(context, callers);
				// One hot key for all four, new at each number of callers: the ways
				// never run at once.
				long hot = ThreadLocalRandom.current().nextLong();
				Map<String, ClosedLoop.Call> ways = new LinkedHashMap<>();
				ways.put(ANNOTATION, on(annotated::lockOne, hot));
				ways.put(STATEMENT, on(handWritten::libraryWaitOne, hot));
				ways.put(BOUNDED, on(handWritten::boundedFloor, hot));
				ways.put(PLAIN, on(handWritten::fullyCheckedFloor, hot));
				Map<String, double[]> measured = measure(ways, callers, blocks, warmup, window);
				double[] annotation = measured.get(ANNOTATION);
				double[] statement = measured.get(STATEMENT);
				double[] bounded = measured.get(BOUNDED);
				double[] plain = measured.get(PLAIN);
				throughput.row(callers, median(annotation), median(statement), median(bounded), median(plain));
				ratios.row(callers, share(annotation, plain), share(annotation, bounded), share(annotation, statement),
						share(statement, bounded), share(bounded, plain));
			}
		}
		System.out.printf(Locale.ROOT,
				"%nOne hot key, %d blocks of a %d ms warm-up and a %d ms window per way.%n%n"
						+ "Calls per second, medians:%n%n%s%nRatios within each block, median [95%% CI]:%n%n%s%n",
				blocks, warmup.toMillis(), window.toMillis(), throughput.markdown(), ratios.markdown());
		System.exit(0);
	}

	/**
	 * Run every block.
	 * @return by way, its calls per second, one a block
	 */
	private static Map<String, double[]> measure(Map<String, ClosedLoop.Call> ways, int callers, int blocks,
			Duration warmup, Duration window) {
		Map<String, double[]> throughputs = new LinkedHashMap<>();
		ways.keySet().forEach((way) -> throughputs.put(way, new double[blocks]));
		List<String> order = new ArrayList<>(ways.keySet());
		// Every way warm, at this number of callers, before the first block.
		for (String way : order) {
			ClosedLoop.run(callers, warmup.multipliedBy(10), 1, window, ways.get(way));
		}
		for (int block = 0; block < blocks; block++) {
			Collections.shuffle(order);
			for (String way : order) {
				throughputs.get(way)[block] = ClosedLoop.run(callers, warmup, 1, window, ways.get(way))
					.get(0)
					.throughput();
			}
		}
		return throughputs;
	}

	/** A caller that locks one key, and has no figure of its own. */
	private static ClosedLoop.Call on(LongConsumer lock, long key) {
		return (caller) -> {
			lock.accept(key);
			return 0;
		};
	}

	private static String median(double[] throughputs) {
		return String.format(Locale.ROOT, "%,.0f", Summary.percentileOf(throughputs, 50));
	}

	private static String share(double[] ways, double[] baseline) {
		return Summary.of(Rounds.ratios(ways, baseline), Summary.Spread.CI95).bracketed(3);
	}

}
