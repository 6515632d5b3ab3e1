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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import reactor.core.publisher.Mono;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario 11, the same locks on R2DBC: what {@code @AdvisoryLocked} on a {@code Mono}
 * method and {@code ReactiveAdvisoryLockOperations.lock} add to a reactive transaction
 * over the same statement written by hand inside {@code TransactionalOperator}, and how
 * fast a waiting subscriber gets the lock once its holder commits, beside the JDBC
 * figures measured in the same rounds. The reactive application runs in a context of its
 * own ({@link ReactiveBenchmarkApplication}); the JDBC calls are the main application's.
 */
final class ReactiveBenchmark {

	static final String FLOOR = "R2DBC floor: hand-written, with the isolation and recovery checks, inside "
			+ "`TransactionalOperator`";

	static final String ANNOTATION = "R2DBC: `@AdvisoryLocked` `Mono` method";

	static final String TRANSACTIONAL_FLOOR = "R2DBC: the floor's statement in a `@Transactional` `Mono` method, "
			+ "no lock annotation";

	static final String OPERATIONS = "R2DBC: `ReactiveAdvisoryLockOperations.lock` inside `TransactionalOperator`";

	static final String JDBC_FLOOR = "JDBC floor: hand-written, with the isolation and recovery checks";

	static final String JDBC_ANNOTATION = "JDBC: `@AdvisoryLocked` method";

	static final String HAND_OFF_ANNOTATION = "R2DBC: `@AdvisoryLocked` `Mono` method (waits inside PostgreSQL)";

	static final String HAND_OFF_FLOOR = "R2DBC: hand-written `pg_advisory_xact_lock($1)`";

	static final String HAND_OFF_JDBC = "JDBC: `@AdvisoryLocked` method, as in scenario 4";

	/** Pairs per block of the share, as on JDBC. */
	static final int PAIRS = 200;

	private static final Duration LONG_ENOUGH = Duration.ofSeconds(60);

	private final Settings settings;

	private final AnnotatedCalls jdbcAnnotated;

	private final HandWrittenCalls jdbcHandWritten;

	private final DataSource holderDataSource;

	private final PgLocks pgLocks;

	ReactiveBenchmark(Settings settings, AnnotatedCalls jdbcAnnotated, HandWrittenCalls jdbcHandWritten,
			DataSource holderDataSource) {
		this.settings = settings;
		this.jdbcAnnotated = jdbcAnnotated;
		this.jdbcHandWritten = jdbcHandWritten;
		this.holderDataSource = holderDataSource;
		this.pgLocks = new PgLocks(holderDataSource);
	}

	/**
	 * Run this scenario alone and print its section, writing nothing: for work on it,
	 * with the settings of a full run ({@code -Dbenchmarks.scale=0.2} for a quick look).
	 * @param args none
	 */
	public static void main(String[] args) throws Exception {
		Benchmarks.reactiveOnly();
	}

	/**
	 * Start the reactive application, measure, and close it.
	 * @return what was measured
	 */
	Result run() throws Exception {
		try (ConfigurableApplicationContext context = ReactiveBenchmarkApplication.start()) {
			ReactiveAnnotatedCalls annotated = context.getBean(ReactiveAnnotatedCalls.class);
			ReactiveHandWrittenCalls handWritten = context.getBean(ReactiveHandWrittenCalls.class);
			warmUp(annotated, handWritten);
			Map<String, double[]> perCall = perCall(annotated, handWritten);
			Map<String, PairedShare.Blocks> share = share(annotated, handWritten);
			Map<String, HandOffBenchmark.Percentiles> handOff = handOff(annotated, handWritten);
			return new Result(perCall, share, handOff);
		}
	}

	/**
	 * Run the reactive calls in turn before any measurement. A reactive call goes through
	 * far more methods than a JDBC one (Reactor's operators, the driver's and the
	 * pool's), and the JIT compiles them only after thousands of calls, longer than the
	 * warm-up of one variant in {@link Rounds}; the calls share most of those methods.
	 */
	private void warmUp(ReactiveAnnotatedCalls annotated, ReactiveHandWrittenCalls handWritten) {
		long end = System.nanoTime() + this.settings.duration(4000).toNanos();
		while (System.nanoTime() < end) {
			block(handWritten.floor(random()));
			block(annotated.floor(random()));
			block(annotated.lockOne(random()));
			block(handWritten.operations(random()));
		}
	}

	/**
	 * Measure one transaction per call, one key, R2DBC and JDBC in the same rounds.
	 */
	private Map<String, double[]> perCall(ReactiveAnnotatedCalls annotated, ReactiveHandWrittenCalls handWritten) {
		Map<String, Rounds.Operation> variants = new LinkedHashMap<>();
		variants.put(FLOOR, () -> block(handWritten.floor(random())));
		variants.put(TRANSACTIONAL_FLOOR, () -> block(annotated.floor(random())));
		variants.put(ANNOTATION, () -> block(annotated.lockOne(random())));
		variants.put(OPERATIONS, () -> block(handWritten.operations(random())));
		variants.put(JDBC_FLOOR, () -> this.jdbcHandWritten.fullyCheckedFloor(random()));
		variants.put(JDBC_ANNOTATION, () -> this.jdbcAnnotated.lockOne(random()));
		return Rounds.interleaved(variants, this.settings.rounds(11), this.settings.duration(1500),
				this.settings.duration(200));
	}

	/**
	 * Measure the library's share on R2DBC in pairs, against the floor (see
	 * {@link PairedShare}), and what {@code @Transactional} alone adds to it, which the
	 * annotation's share includes.
	 */
	private Map<String, PairedShare.Blocks> share(ReactiveAnnotatedCalls annotated,
			ReactiveHandWrittenCalls handWritten) throws Exception {
		Map<String, Rounds.Operation> variants = new LinkedHashMap<>();
		variants.put(ANNOTATION, () -> block(annotated.lockOne(random())));
		variants.put(OPERATIONS, () -> block(handWritten.operations(random())));
		variants.put(TRANSACTIONAL_FLOOR, () -> block(annotated.floor(random())));
		return PairedShare.measure(() -> block(handWritten.floor(random())), variants, this.settings.count(100), PAIRS);
	}

	/**
	 * Measure the hand-off to a waiting subscriber, and to a JDBC caller in the same
	 * rounds.
	 * @return by waiter, the p50 and p99 in milliseconds of each round
	 */
	private Map<String, HandOffBenchmark.Percentiles> handOff(ReactiveAnnotatedCalls annotated,
			ReactiveHandWrittenCalls handWritten) throws Exception {
		ExecutorService jdbcWaiters = Executors.newCachedThreadPool();
		try {
			Map<String, Sampler> samplers = new LinkedHashMap<>();
			samplers.put(HAND_OFF_ANNOTATION,
					() -> handOff(true, (key) -> (acquired) -> annotated.lockAndRun(key, acquired)));
			samplers.put(HAND_OFF_FLOOR,
					() -> handOff(false, (key) -> (acquired) -> handWritten.floorAndRun(key, acquired)));
			samplers.put(HAND_OFF_JDBC, () -> handOff(true, (key) -> (acquired) -> Mono.fromFuture(
					CompletableFuture.runAsync(() -> this.jdbcAnnotated.lockAndRun(key, acquired), jdbcWaiters))));
			for (Sampler sampler : samplers.values()) {
				for (int i = 0; i < 5; i++) {
					sampler.sampleMillis();
				}
			}
			int rounds = this.settings.rounds(5);
			int samples = this.settings.count(HandOffBenchmark.ADVISORY_SAMPLES);
			Map<String, HandOffBenchmark.Percentiles> results = new LinkedHashMap<>();
			samplers.keySet()
				.forEach((name) -> results.put(name,
						new HandOffBenchmark.Percentiles(new double[rounds], new double[rounds])));
			for (int round = 0; round < rounds; round++) {
				for (Map.Entry<String, Sampler> sampler : samplers.entrySet()) {
					double[] millis = new double[samples];
					for (int i = 0; i < samples; i++) {
						millis[i] = sampler.getValue().sampleMillis();
					}
					results.get(sampler.getKey()).p50()[round] = Summary.percentileOf(millis, 50);
					results.get(sampler.getKey()).p99()[round] = Summary.percentileOf(millis, 99);
				}
			}
			return results;
		}
		finally {
			jdbcWaiters.shutdownNow();
		}
	}

	/**
	 * One hand-off: a holder in another session holds the key, the waiter subscribes and
	 * waits inside PostgreSQL (its {@code pg_locks} row shows it), the holder commits;
	 * the time from just before the commit to the start of the waiter's locked body.
	 * @param derived whether the waiter derives its key from the namespace and value (the
	 * library) or locks the value as it is (the hand-written floor)
	 * @param waiter by key, the call whose body records when it runs
	 */
	private double handOff(boolean derived, Function<Long, Function<Runnable, Mono<Void>>> waiter) throws Exception {
		long value = random();
		long lockKey = derived ? AdvisoryLockKeys.of(AnnotatedCalls.NAMESPACE, value) : value;
		AtomicLong acquired = new AtomicLong();
		try (LockHolder holder = LockHolder.exclusive(this.holderDataSource, lockKey)) {
			CompletableFuture<Void> waiting = waiter.apply(value)
				.apply(() -> acquired.set(System.nanoTime()))
				.toFuture();
			// A fact, not a sleep: the waiter's row in pg_locks shows it waiting.
			this.pgLocks.awaitWaiters(lockKey, 1);
			long released = System.nanoTime();
			holder.commit();
			waiting.get(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
			return (acquired.get() - released) / 1e6;
		}
	}

	private static void block(Mono<Void> call) {
		call.block(LONG_ENOUGH);
	}

	private static long random() {
		return ThreadLocalRandom.current().nextLong();
	}

	/**
	 * What the reactive scenario measured.
	 *
	 * @param perCall microseconds per call of each variant, per round
	 * @param share by variant, its blocks against the R2DBC floor
	 * @param handOff by waiter, the p50 and p99 in milliseconds of each round
	 */
	record Result(Map<String, double[]> perCall, Map<String, PairedShare.Blocks> share,
			Map<String, HandOffBenchmark.Percentiles> handOff) {

	}

	@FunctionalInterface
	private interface Sampler {

		double sampleMillis() throws Exception;

	}

}
