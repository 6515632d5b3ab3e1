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

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario 9, a crowd on one key: 50, then 200 callers, each with a connection of its
 * own, block on a key that a holder in another session holds; the holder commits, and the
 * crowd goes through the lock one by one. Each hand-off is the time from the end of one
 * caller's locked body (its COMMIT still to come) to the start of the next one's; the
 * throughput is the crowd over the time from the holder's release to the last body's end.
 */
final class CrowdBenchmark {

	/** The crowds, in callers. */
	static final List<Integer> CROWDS = List.of(50, 200);

	/**
	 * What the embedded server allows: the largest crowd, the application's other
	 * connections and the observers.
	 */
	static final int MAX_CONNECTIONS = 300;

	private static final Duration LONG_ENOUGH = Duration.ofSeconds(120);

	private final Settings settings;

	private final TestDatabase database;

	private final DataSource holderDataSource;

	private final PgLocks pgLocks;

	private final Map<Integer, Double> poolFillMillis = new LinkedHashMap<>();

	CrowdBenchmark(Settings settings, TestDatabase database) {
		this.settings = settings;
		this.database = database;
		this.holderDataSource = database.dataSource();
		this.pgLocks = new PgLocks(this.holderDataSource);
	}

	/**
	 * Run each crowd a few rounds.
	 * @return by crowd size, each round's figures
	 */
	Map<Integer, List<Round>> run() throws Exception {
		Map<Integer, List<Round>> results = new LinkedHashMap<>();
		ExecutorService callers = Executors.newCachedThreadPool();
		try {
			for (int crowd : CROWDS) {
				// An application of its own, whose pool has a connection for every
				// caller.
				try (ConfigurableApplicationContext context = BenchmarkApplication.start(this.database,
						this.database.url(), crowd)) {
					fillPool(context, crowd);
					AnnotatedCalls annotated = context.getBean(AnnotatedCalls.class);
					once(annotated, callers, Math.min(crowd, 10));
					List<Round> rounds = new ArrayList<>();
					for (int round = 0; round < this.settings.rounds(3); round++) {
						rounds.add(once(annotated, callers, crowd));
					}
					results.put(crowd, rounds);
				}
			}
		}
		finally {
			callers.shutdownNow();
		}
		return results;
	}

	/**
	 * Wait until the pool has a connection for every caller, so that the crowd queues on
	 * the lock, not on the pool.
	 */
	private void fillPool(ConfigurableApplicationContext context, int size) throws Exception {
		HikariDataSource dataSource = context.getBean(HikariDataSource.class);
		// The pool starts at its first connection.
		dataSource.getConnection().close();
		HikariPoolMXBean pool = dataSource.getHikariPoolMXBean();
		long start = System.nanoTime();
		while (pool.getTotalConnections() < size) {
			if (System.nanoTime() - start > LONG_ENOUGH.toNanos()) {
				throw new IllegalStateException("The pool opened " + pool.getTotalConnections() + " of " + size
						+ " connections in " + LONG_ENOUGH);
			}
			Thread.sleep(20);
		}
		this.poolFillMillis.put(size, (System.nanoTime() - start) / 1e6);
	}

	/**
	 * Return how long the pool took to open the connections of each crowd.
	 * @return milliseconds by crowd size
	 */
	Map<Integer, Double> poolFillMillis() {
		return this.poolFillMillis;
	}

	private Round once(AnnotatedCalls annotated, ExecutorService callers, int crowd) throws Exception {
		long key = ThreadLocalRandom.current().nextLong();
		long lockKey = AdvisoryLockKeys.of(AnnotatedCalls.NAMESPACE, key);
		long[] starts = new long[crowd];
		long[] ends = new long[crowd];
		try (LockHolder holder = LockHolder.exclusive(this.holderDataSource, lockKey)) {
			long submitted = System.nanoTime();
			List<Future<?>> calls = new ArrayList<>(crowd);
			for (int i = 0; i < crowd; i++) {
				int caller = i;
				calls.add(callers.submit(() -> annotated.lockAndRun(key, () -> {
					starts[caller] = System.nanoTime();
					ends[caller] = System.nanoTime();
				})));
			}
			// A fact, not a sleep: every caller's row in pg_locks shows it waiting.
			this.pgLocks.awaitWaiters(lockKey, crowd);
			long gcBefore = gcMillis();
			long released = System.nanoTime();
			holder.commit();
			for (Future<?> call : calls) {
				call.get(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
			}
			return Round.of(submitted, released, starts, ends, gcMillis() - gcBefore);
		}
	}

	/**
	 * Return how long this JVM's collectors have paused it, in all: the hand-offs of a
	 * pass that a collection stopped are the longest.
	 */
	private static long gcMillis() {
		return ManagementFactory.getGarbageCollectorMXBeans()
			.stream()
			.mapToLong(GarbageCollectorMXBean::getCollectionTime)
			.filter((millis) -> millis > 0)
			.sum();
	}

	/**
	 * One crowd's pass through the lock.
	 *
	 * @param queueMillis from the first call to every caller waiting in {@code pg_locks}
	 * @param handOffsMillis each hand-off, from one body's end to the next body's start
	 * @param throughput calls per second from the release to the last body's end
	 * @param gcMillis how long the JVM's collectors ran during the pass
	 */
	record Round(double queueMillis, double[] handOffsMillis, double throughput, long gcMillis) {

		static Round of(long submitted, long released, long[] starts, long[] ends, long gcMillis) {
			Integer[] order = new Integer[starts.length];
			Arrays.setAll(order, (i) -> i);
			Arrays.sort(order, (a, b) -> Long.compare(starts[a], starts[b]));
			double[] handOffs = new double[starts.length - 1];
			for (int i = 1; i < order.length; i++) {
				handOffs[i - 1] = (starts[order[i]] - ends[order[i - 1]]) / 1e6;
			}
			long last = Arrays.stream(ends).max().orElse(released);
			return new Round((released - submitted) / 1e6, handOffs, starts.length / ((last - released) / 1e9),
					gcMillis);
		}

	}

}
