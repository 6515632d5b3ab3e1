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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Concurrency limits ({@code permits}) against what teams use instead: what a permit of a
 * free limit costs against a plain lock, and, with a limit of {@value #PERMITS} permits
 * and 8 or 40 callers on it, the throughput against the model N × 1000 / u, the hand-off
 * from a release to the next body's start, the statements each waiter sends per second,
 * and how fair it is. The peers, on the same rounds: a hand-written limit that tries each
 * slot, sleeps {@value #RETRY_MILLIS} ms and tries again, and Redisson's
 * {@code RSemaphore} and {@code RPermitExpirableSemaphore} on a local Redis (Debian's
 * {@code redis-server}, started and stopped here; skipped with a message where it is not
 * installed). Part of the full run; alone it prints its section and writes nothing:
 * {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pbenchmarks -Dbenchmarks.main=io.github.advisorylock.benchmarks.LimitBenchmark}.
 */
public final class LimitBenchmark implements AutoCloseable {

	static final int PERMITS = 4;

	static final Duration BODY = Duration.ofMillis(5);

	static final int RETRY_MILLIS = 10;

	static final String PLAIN = "a plain lock (the floor)";

	static final String LIBRARY = "`permits = 4`";

	static final String HAND_WRITTEN = "hand-written: try each slot, sleep " + RETRY_MILLIS + " ms";

	static final String SEMAPHORE = "Redisson `RSemaphore`";

	static final String EXPIRABLE = "Redisson `RPermitExpirableSemaphore`";

	private final Settings settings;

	private final String namespace = "limit-" + UUID.randomUUID();

	/** The statements the waiters of the advisory-lock variants sent, by variant. */
	private final Map<String, AtomicLong> waitStatements = new LinkedHashMap<>();

	private final HikariDataSource pool;

	private final TransactionTemplate transaction;

	private final JdbcTemplate jdbc;

	private final AdvisoryLockTemplate locks;

	private final @Nullable RedisServer redis;

	/** The Redis semaphores whose permits are set. */
	private final Set<String> initialized = ConcurrentHashMap.newKeySet();

	private final @Nullable RedissonClient redisson;

	LimitBenchmark(Settings settings, TestDatabase database) throws Exception {
		this.settings = settings;
		this.waitStatements.put(LIBRARY, new AtomicLong());
		this.waitStatements.put(HAND_WRITTEN, new AtomicLong());
		this.pool = database.newDataSource(48);
		DataSource counting = countingSlices(this.pool);
		this.transaction = new TransactionTemplate(new DataSourceTransactionManager(counting));
		this.jdbc = new JdbcTemplate(counting);
		this.locks = new AdvisoryLockTemplate(counting);
		this.locks.setDefaultTimeout(Duration.ofSeconds(60));
		this.redis = RedisServer.startIfInstalled();
		if (this.redis != null) {
			Config config = new Config();
			config.useSingleServer().setAddress(this.redis.address()).setConnectionPoolSize(64);
			this.redisson = Redisson.create(config);
		}
		else {
			this.redisson = null;
		}
	}

	/**
	 * Run the measures alone and print their section.
	 * @param args none
	 * @throws Exception if a measure fails
	 */
	public static void main(String[] args) throws Exception {
		Settings settings = Settings.fromSystemProperties();
		System.setProperty(TestDatabase.DURABLE_PROPERTY, Boolean.toString(settings.durable()));
		System.setProperty(TestDatabase.MAX_CONNECTIONS_PROPERTY, "100");
		try (LimitBenchmark benchmark = new LimitBenchmark(settings, TestDatabase.get())) {
			Result result = benchmark.run();
			System.out.println(result.uncontendedTable());
			System.out.println(result.contendedTable());
			if (result.skipped() != null) {
				System.out.println(result.skipped());
			}
		}
		System.exit(0);
	}

	/**
	 * Run every measure.
	 * @return what was measured
	 * @throws Exception if a measure fails
	 */
	Result run() throws Exception {
		Map<String, Limiter> limiters = limiters();
		Map<String, Rounds.Operation> calls = new LinkedHashMap<>();
		LockRequest plain = LockRequest.of(this.namespace, "plain");
		calls.put(PLAIN, () -> this.transaction.executeWithoutResult((status) -> this.locks.lock(plain)));
		limiters.forEach((name, limiter) -> calls.put(name, () -> limiter.hold("free", () -> {
		})));
		Map<String, double[]> uncontended = Rounds.interleaved(calls, this.settings.rounds(21),
				this.settings.duration(1000), this.settings.duration(250));
		List<Row> contended = new ArrayList<>();
		Duration duration = Duration.ofSeconds(Math.max(2, Math.round(6 * this.settings.scale())));
		for (int callers : new int[] { 8, 40 }) {
			for (Map.Entry<String, Limiter> limiter : limiters.entrySet()) {
				contended.add(contended(limiter.getKey(), limiter.getValue(), callers, duration));
			}
		}
		String skipped = (this.redisson != null) ? null
				: "Redisson's semaphores were skipped: redis-server is not installed (" + RedisServer.INSTALL_HINT
						+ ").";
		return new Result(uncontended, contended, skipped);
	}

	/** Each way to hold one permit of a limit around a body, by name. */
	private Map<String, Limiter> limiters() {
		Map<String, Limiter> limiters = new LinkedHashMap<>();
		limiters.put(LIBRARY, (resource, body) -> this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(LockRequest.of(this.namespace, resource).withPermits(PERMITS));
			body.run();
		}));
		limiters.put(HAND_WRITTEN, this::handWritten);
		RedissonClient client = this.redisson;
		if (client != null) {
			limiters.put(SEMAPHORE, (resource, body) -> {
				RSemaphore semaphore = client.getSemaphore(this.namespace + ":" + resource);
				// Set once per semaphore, as an application would, not on every call.
				if (this.initialized.add(SEMAPHORE + resource)) {
					semaphore.trySetPermits(PERMITS);
				}
				semaphore.acquire();
				try {
					this.transaction.executeWithoutResult((status) -> body.run());
				}
				finally {
					semaphore.release();
				}
			});
			limiters.put(EXPIRABLE, (resource, body) -> {
				RPermitExpirableSemaphore semaphore = client
					.getPermitExpirableSemaphore(this.namespace + ":expirable:" + resource);
				if (this.initialized.add(EXPIRABLE + resource)) {
					semaphore.trySetPermits(PERMITS);
				}
				// A lease, so that a crashed holder's permit comes back.
				String permit = semaphore.acquire(30, TimeUnit.SECONDS);
				try {
					this.transaction.executeWithoutResult((status) -> body.run());
				}
				finally {
					semaphore.release(permit);
				}
			});
		}
		return limiters;
	}

	/**
	 * What a team writes by hand: in the transaction, try each slot's key in turn, and
	 * when every one is held, sleep and try them all again.
	 */
	private void handWritten(String resource, Runnable body) {
		long key = AdvisoryLockKeys.of(this.namespace, resource);
		this.transaction.executeWithoutResult((status) -> {
			boolean first = true;
			while (true) {
				for (int slot = 0; slot < PERMITS; slot++) {
					if (!first) {
						this.waitStatements.get(HAND_WRITTEN).incrementAndGet();
					}
					Boolean taken = this.jdbc.queryForObject("SELECT pg_try_advisory_xact_lock(?)", Boolean.class,
							AdvisoryLockKeys.permitSlot(key, slot));
					if (Boolean.TRUE.equals(taken)) {
						body.run();
						return;
					}
				}
				first = false;
				sleep(Duration.ofMillis(RETRY_MILLIS));
			}
		});
	}

	/**
	 * Callers in a closed loop on one limit of {@link #PERMITS}, each body sleeping
	 * {@link #BODY} under its permit.
	 */
	private Row contended(String name, Limiter limiter, int callers, Duration duration) throws Exception {
		String resource = "contended-" + callers + "-" + UUID.randomUUID();
		Queue<Long> releases = new ConcurrentLinkedQueue<>();
		Queue<Double> handOffs = new ConcurrentLinkedQueue<>();
		Queue<Double> waits = new ConcurrentLinkedQueue<>();
		AtomicLong bodies = new AtomicLong();
		AtomicLong bodyNanos = new AtomicLong();
		ExecutorService threads = Executors.newFixedThreadPool(callers);
		AtomicLong statements = this.waitStatements.get(name);
		long statementsBefore = (statements != null) ? statements.get() : 0;
		long end = System.nanoTime() + duration.toNanos();
		List<Future<?>> loops = new ArrayList<>();
		for (int i = 0; i < callers; i++) {
			loops.add(threads.submit(() -> {
				while (System.nanoTime() < end) {
					long asked = System.nanoTime();
					limiter.hold(resource, () -> {
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
						// The permit is released at the COMMIT (or the release) that
						// follows: the hand-off includes it.
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
		double meanBodyMillis = bodyNanos.get() / 1e6 / bodies.get();
		double waiters = Math.max(1, callers - PERMITS);
		double statementsPerWaiter = (statements != null) ? (statements.get() - statementsBefore) / seconds / waiters
				: Double.NaN;
		double[] handOff = sorted(handOffs);
		double[] waited = sorted(waits);
		return new Row(name, callers, bodies.get() / seconds, PERMITS * 1000 / meanBodyMillis,
				Summary.percentile(handOff, 50), Summary.percentile(handOff, 99), statementsPerWaiter,
				Summary.percentile(waited, 50), waited[waited.length - 1]);
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

	/**
	 * Count the slices of waiting the library sends, by the savepoint each one opens or
	 * rolls back to.
	 */
	private DataSource countingSlices(DataSource dataSource) {
		AtomicLong slices = this.waitStatements.get(LIBRARY);
		InvocationHandler connections = (proxy, method, args) -> {
			if (method.getName().equals("getConnection")) {
				Connection connection = (Connection) invoke(method, dataSource, args);
				return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
						(connectionProxy, connectionMethod, connectionArgs) -> {
							if (connectionMethod.getName().equals("prepareStatement")
									&& String.valueOf(connectionArgs[0]).contains("SAVEPOINT advisory_lock_permit; ")) {
								slices.incrementAndGet();
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

	@Override
	public void close() throws Exception {
		if (this.redisson != null) {
			this.redisson.shutdown();
		}
		if (this.redis != null) {
			this.redis.close();
		}
		this.pool.close();
	}

	/**
	 * One way to hold one permit of a limit of {@link #PERMITS} around a body.
	 */
	@FunctionalInterface
	private interface Limiter {

		/**
		 * Run the body holding one permit of the limit of a resource.
		 * @param resource names the limit
		 * @param body the work under the permit
		 * @throws Exception if taking the permit fails or is interrupted
		 */
		void hold(String resource, Runnable body) throws Exception;

	}

	/**
	 * One limiter under load.
	 *
	 * @param limiter its name
	 * @param callers the callers in the closed loop
	 * @param throughput bodies per second
	 * @param model {@link #PERMITS} × 1000 / the mean body in ms
	 * @param handOffP50 from a release to the next body's start, ms
	 * @param handOffP99 the same, p99
	 * @param statementsPerWaiter statements each waiter sent per second to wait, or NaN
	 * where not counted
	 * @param waitP50 from asking to the body's start, ms
	 * @param longestWait the longest of those, ms
	 */
	record Row(String limiter, int callers, double throughput, double model, double handOffP50, double handOffP99,
			double statementsPerWaiter, double waitP50, double longestWait) {

	}

	/**
	 * What was measured.
	 *
	 * @param uncontended each variant's µs per call, one value per round, the plain lock
	 * first
	 * @param contended the rows under load
	 * @param skipped why a peer was skipped, or {@code null}
	 */
	record Result(Map<String, double[]> uncontended, List<Row> contended, @Nullable String skipped) {

		String uncontendedTable() {
			double[] floor = this.uncontended.get(PLAIN);
			Table table = new Table("call, nothing held", "µs per call", "÷ a plain lock, median [95% CI]");
			this.uncontended.forEach((name, micros) -> table.row(name, Summary.of(micros, Summary.Spread.IQR).format(0),
					Summary.of(Rounds.ratios(micros, floor), Summary.Spread.CI95).bracketed(3)));
			return table.markdown();
		}

		String contendedTable() {
			Table table = new Table("limit", "callers", "bodies /s", "model N×1000/u /s", "÷ model", "hand-off p50, ms",
					"hand-off p99, ms", "statements per waiter per s", "wait p50, ms", "longest wait, ms");
			for (Row row : this.contended) {
				table.row(row.limiter(), row.callers(), fmt("%.0f", row.throughput()), fmt("%.0f", row.model()),
						fmt("%.2f", row.throughput() / row.model()), fmt("%.2f", row.handOffP50()),
						fmt("%.2f", row.handOffP99()),
						Double.isNaN(row.statementsPerWaiter()) ? "—" : fmt("%.1f", row.statementsPerWaiter()),
						fmt("%.1f", row.waitP50()), fmt("%.0f", row.longestWait()));
			}
			return table.markdown();
		}

		/**
		 * Return a row.
		 * @param limiter the limiter's name
		 * @param callers the callers
		 * @return the row
		 */
		Row row(String limiter, int callers) {
			return this.contended.stream()
				.filter((row) -> row.limiter().equals(limiter) && row.callers() == callers)
				.findFirst()
				.orElseThrow();
		}

		private static String fmt(String format, Object... args) {
			return String.format(java.util.Locale.ROOT, format, args);
		}

	}

}
