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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;

import org.springframework.integration.jdbc.lock.JdbcLockRegistry;

/**
 * Scenario 4, hand-off latency: a holder releases a lock that a caller is blocked on; the
 * figure is the time from the holder's release (just before its COMMIT, or its
 * {@code unlock()}) to the moment the waiter holds the lock (its locked method body
 * starts, or its {@code tryLock} returns).
 */
final class HandOffBenchmark {

	static final String ANNOTATION = "`@AdvisoryLocked` (waits inside PostgreSQL)";

	static final String FLOOR = "hand-written `pg_advisory_xact_lock(?)`";

	static final String REGISTRY_DEFAULT = "`JdbcLockRegistry`, idleBetweenTries 100 ms (its default)";

	static final String REGISTRY_FAST = "`JdbcLockRegistry`, idleBetweenTries 10 ms";

	/**
	 * Samples per round at scale 1: the advisory locks hand off fast, the registry at
	 * each poll.
	 */
	static final int ADVISORY_SAMPLES = 60;

	static final int REGISTRY_DEFAULT_SAMPLES = 20;

	static final int REGISTRY_FAST_SAMPLES = 40;

	private static final Duration LONG_ENOUGH = Duration.ofSeconds(60);

	private final Settings settings;

	private final AnnotatedCalls annotated;

	private final HandWrittenCalls handWritten;

	private final DataSource holderDataSource;

	private final PgLocks pgLocks;

	private final Peers peers;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final AtomicInteger names = new AtomicInteger();

	HandOffBenchmark(Settings settings, AnnotatedCalls annotated, HandWrittenCalls handWritten,
			DataSource holderDataSource, Peers peers) {
		this.settings = settings;
		this.annotated = annotated;
		this.handWritten = handWritten;
		this.holderDataSource = holderDataSource;
		this.pgLocks = new PgLocks(holderDataSource);
		this.peers = peers;
	}

	/**
	 * Measure every implementation in interleaved rounds.
	 * @return by implementation, the p50 and p99 in milliseconds of each round
	 */
	Map<String, Percentiles> run() throws Exception {
		JdbcLockRegistry defaultHolder = this.peers.lockRegistry(Duration.ofMillis(100));
		JdbcLockRegistry defaultWaiter = this.peers.lockRegistry(Duration.ofMillis(100));
		JdbcLockRegistry fastHolder = this.peers.lockRegistry(Duration.ofMillis(10));
		JdbcLockRegistry fastWaiter = this.peers.lockRegistry(Duration.ofMillis(10));
		Map<String, Sampler> samplers = new LinkedHashMap<>();
		samplers.put(ANNOTATION, this::annotationSample);
		samplers.put(FLOOR, this::floorSample);
		samplers.put(REGISTRY_DEFAULT, () -> registrySample(defaultHolder, defaultWaiter, 100));
		samplers.put(REGISTRY_FAST, () -> registrySample(fastHolder, fastWaiter, 10));
		Map<String, Integer> samplesPerRound = Map.of(ANNOTATION, this.settings.count(ADVISORY_SAMPLES), FLOOR,
				this.settings.count(ADVISORY_SAMPLES), REGISTRY_DEFAULT, this.settings.count(REGISTRY_DEFAULT_SAMPLES),
				REGISTRY_FAST, this.settings.count(REGISTRY_FAST_SAMPLES));
		try {
			for (Map.Entry<String, Sampler> sampler : samplers.entrySet()) {
				for (int i = 0; i < 5; i++) {
					sampler.getValue().sampleMillis();
				}
			}
			int rounds = this.settings.rounds(5);
			Map<String, Percentiles> results = new LinkedHashMap<>();
			samplers.keySet()
				.forEach((name) -> results.put(name, new Percentiles(new double[rounds], new double[rounds])));
			for (int round = 0; round < rounds; round++) {
				for (Map.Entry<String, Sampler> sampler : samplers.entrySet()) {
					double[] samples = new double[samplesPerRound.get(sampler.getKey())];
					for (int i = 0; i < samples.length; i++) {
						samples[i] = sampler.getValue().sampleMillis();
					}
					results.get(sampler.getKey()).p50()[round] = Summary.percentileOf(samples, 50);
					results.get(sampler.getKey()).p99()[round] = Summary.percentileOf(samples, 99);
				}
			}
			return results;
		}
		finally {
			this.executor.shutdownNow();
		}
	}

	private double annotationSample() throws Exception {
		long key = ThreadLocalRandom.current().nextLong();
		return advisoryHandOff(AdvisoryLockKeys.of(AnnotatedCalls.NAMESPACE, key),
				(acquired) -> this.annotated.lockAndRun(key, () -> acquired.set(System.nanoTime())));
	}

	private double floorSample() throws Exception {
		long key = ThreadLocalRandom.current().nextLong();
		return advisoryHandOff(key,
				(acquired) -> this.handWritten.floorAndRun(key, () -> acquired.set(System.nanoTime())));
	}

	private double advisoryHandOff(long lockKey, Consumer<AtomicLong> waiterCall) throws Exception {
		AtomicLong acquired = new AtomicLong();
		try (LockHolder holder = LockHolder.exclusive(this.holderDataSource, lockKey)) {
			Future<?> waiter = this.executor.submit(() -> waiterCall.accept(acquired));
			// A fact, not a sleep: the waiter's row in pg_locks shows it waiting.
			this.pgLocks.awaitWaiters(lockKey, 1);
			long released = System.nanoTime();
			holder.commit();
			waiter.get(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
			return (acquired.get() - released) / 1e6;
		}
	}

	/**
	 * A registry waiter polls: it learns of the release at its next try. The holder
	 * releases at a random point of the waiter's sleep between tries, as a real release
	 * would fall.
	 */
	private double registrySample(JdbcLockRegistry holderRegistry, JdbcLockRegistry waiterRegistry, int idleMillis)
			throws Exception {
		String name = "handoff-" + this.names.incrementAndGet();
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicLong released = new AtomicLong();
		Future<?> holder = this.executor.submit(() -> {
			Lock lock = holderRegistry.obtain(name);
			lock.lock();
			held.countDown();
			release.await();
			released.set(System.nanoTime());
			lock.unlock();
			return null;
		});
		held.await(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
		Future<Long> waiter = this.executor.submit(() -> {
			Lock lock = waiterRegistry.obtain(name);
			if (!lock.tryLock(LONG_ENOUGH.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("JdbcLockRegistry waiter timed out on " + name);
			}
			long acquired = System.nanoTime();
			lock.unlock();
			return acquired;
		});
		Thread.sleep(idleMillis + ThreadLocalRandom.current().nextInt(idleMillis));
		release.countDown();
		long acquired = waiter.get(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
		holder.get(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
		return (acquired - released.get()) / 1e6;
	}

	/**
	 * Per-round percentiles of one implementation, in milliseconds.
	 *
	 * @param p50 the median of each round
	 * @param p99 the 99th percentile of each round
	 */
	record Percentiles(double[] p50, double[] p99) {

	}

	@FunctionalInterface
	private interface Sampler {

		double sampleMillis() throws Exception;

	}

}
