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

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.test.TestDatabase;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Concurrency limits ({@code permits}), run alone: what a permit costs against a plain
 * lock when nothing is held, and, with a limit of 4 permits and 8 or 40 callers on it,
 * the throughput against the model N × 1000 / u, the hand-off from a release to the next
 * body's start, the slices of waiting each waiter sends per second, and how fair it is.
 * Prints its tables and writes nothing:
 * {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pbenchmarks -Dbenchmarks.main=io.github.advisorylock.benchmarks.LimitBenchmark}.
 */
public final class LimitBenchmark {

	private static final int PERMITS = 4;

	private static final Duration BODY = Duration.ofMillis(5);

	private final String namespace = "limit-" + UUID.randomUUID();

	private final AtomicLong slices = new AtomicLong();

	private final HikariDataSource pool;

	private final TransactionTemplate transaction;

	private final AdvisoryLockTemplate locks;

	private LimitBenchmark(int poolSize) {
		this.pool = TestDatabase.get().newDataSource(poolSize);
		DataSource counting = countingSlices(this.pool);
		this.transaction = new TransactionTemplate(new DataSourceTransactionManager(counting));
		this.locks = new AdvisoryLockTemplate(counting);
		this.locks.setDefaultTimeout(Duration.ofSeconds(60));
	}

	/**
	 * Run the measures and print their tables.
	 * @param args none
	 */
	public static void main(String[] args) throws Exception {
		Settings settings = Settings.fromSystemProperties();
		System.setProperty(TestDatabase.DURABLE_PROPERTY, Boolean.toString(settings.durable()));
		System.setProperty(TestDatabase.MAX_CONNECTIONS_PROPERTY, "100");
		LimitBenchmark benchmark = new LimitBenchmark(48);
		try {
			benchmark.uncontended(settings.count(21), 400);
			System.out.println();
			System.out
				.println("| callers | throughput /s | model N×1000/u /s | ratio | hand-off p50 ms | hand-off p99 ms "
						+ "| slices per waiter per s | wait p50 ms | longest wait ms |");
			System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
			for (int callers : new int[] { 8, 40 }) {
				benchmark.contended(callers, Duration.ofSeconds(Math.max(2, Math.round(8 * settings.scale()))));
			}
		}
		finally {
			benchmark.pool.close();
		}
		System.exit(0);
	}

	/**
	 * A permit of a free limit against a plain lock, each a transaction of its own, in
	 * paired rounds: the median of the rounds' ratios.
	 */
	private void uncontended(int rounds, int calls) {
		LockRequest plain = LockRequest.of(this.namespace, "plain");
		LockRequest limit = LockRequest.of(this.namespace, "limit").withPermits(PERMITS);
		for (int i = 0; i < calls; i++) {
			time(plain, 1);
			time(limit, 1);
		}
		double[] ratios = new double[rounds];
		for (int round = 0; round < rounds; round++) {
			boolean plainFirst = round % 2 == 0;
			long first = time(plainFirst ? plain : limit, calls);
			long second = time(plainFirst ? limit : plain, calls);
			ratios[round] = plainFirst ? (double) second / first : (double) first / second;
		}
		Arrays.sort(ratios);
		System.out.printf(Locale.ROOT,
				"Uncontended, a permit of %d ÷ a plain lock, %d paired rounds of %d transactions: median %.3f "
						+ "(middle half %.3f–%.3f)%n",
				PERMITS, rounds, calls, ratios[rounds / 2], ratios[rounds / 4], ratios[(3 * rounds) / 4]);
	}

	private long time(LockRequest request, int calls) {
		long start = System.nanoTime();
		for (int i = 0; i < calls; i++) {
			this.transaction.executeWithoutResult((status) -> this.locks.lock(request));
		}
		return System.nanoTime() - start;
	}

	/**
	 * Callers in a closed loop on one limit of {@link #PERMITS}, each body sleeping
	 * {@link #BODY} under its permit.
	 */
	private void contended(int callers, Duration duration) throws Exception {
		LockRequest limit = LockRequest.of(this.namespace, "contended-" + callers).withPermits(PERMITS);
		Queue<Long> releases = new ConcurrentLinkedQueue<>();
		Queue<Double> handOffs = new ConcurrentLinkedQueue<>();
		Queue<Double> waits = new ConcurrentLinkedQueue<>();
		AtomicLong bodies = new AtomicLong();
		AtomicLong bodyNanos = new AtomicLong();
		ExecutorService threads = Executors.newFixedThreadPool(callers);
		long slicesBefore = this.slices.get();
		long end = System.nanoTime() + duration.toNanos();
		List<Future<?>> loops = new ArrayList<>();
		for (int i = 0; i < callers; i++) {
			loops.add(threads.submit(() -> {
				while (System.nanoTime() < end) {
					long asked = System.nanoTime();
					this.transaction.executeWithoutResult((status) -> {
						this.locks.lock(limit);
						long started = System.nanoTime();
						waits.add((started - asked) / 1e6);
						Long released = releases.poll();
						if (released != null) {
							handOffs.add((started - released) / 1e6);
						}
						sleep(BODY);
						bodies.incrementAndGet();
						long ended = System.nanoTime();
						bodyNanos.addAndGet(ended - started);
						// The permit is released at the COMMIT that follows.
						releases.add(ended);
					});
				}
				return null;
			}));
		}
		for (Future<?> loop : loops) {
			loop.get(duration.toSeconds() + 120, TimeUnit.SECONDS);
		}
		threads.shutdown();
		double seconds = duration.toNanos() / 1e9;
		double throughput = bodies.get() / seconds;
		double meanBodyMillis = bodyNanos.get() / 1e6 / bodies.get();
		double model = PERMITS * 1000 / meanBodyMillis;
		double waiters = Math.max(1, callers - PERMITS);
		double slicesPerWaiter = (this.slices.get() - slicesBefore) / seconds / waiters;
		double[] handOff = sorted(handOffs);
		double[] waited = sorted(waits);
		System.out.printf(Locale.ROOT, "| %d | %.0f | %.0f | %.2f | %.2f | %.2f | %.1f | %.1f | %.0f |%n", callers,
				throughput, model, throughput / model, percentile(handOff, 0.5), percentile(handOff, 0.99),
				slicesPerWaiter, percentile(waited, 0.5), waited[waited.length - 1]);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static double[] sorted(Queue<Double> values) {
		double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
		Arrays.sort(sorted);
		return sorted;
	}

	private static double percentile(double[] sorted, double p) {
		return (sorted.length == 0) ? Double.NaN : sorted[(int) Math.min(sorted.length - 1, p * sorted.length)];
	}

	/**
	 * Count the slices of waiting the library sends, by the savepoint each one opens or
	 * rolls back to.
	 */
	private DataSource countingSlices(DataSource dataSource) {
		InvocationHandler connections = (proxy, method, args) -> {
			if (method.getName().equals("getConnection")) {
				Connection connection = (Connection) invoke(method, dataSource, args);
				return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
						(connectionProxy, connectionMethod, connectionArgs) -> {
							if (connectionMethod.getName().equals("prepareStatement")
									&& String.valueOf(connectionArgs[0]).contains("SAVEPOINT advisory_lock_permit; ")) {
								this.slices.incrementAndGet();
							}
							return invoke(connectionMethod, connection, connectionArgs);
						});
			}
			return invoke(method, dataSource, args);
		};
		return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { DataSource.class },
				connections);
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
