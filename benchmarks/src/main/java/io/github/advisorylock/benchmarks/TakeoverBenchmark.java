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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;

/**
 * Scenario 7, the next holder of an invocation-scoped lock: an instance waits
 * ({@code BLOCK}) for a lock that another holds, and the figure is the time from the
 * holder's end to the moment the waiter's work starts. The holder ends three ways: its
 * call returns (in this JVM); its process is killed ({@code SIGKILL}, a
 * {@link HolderProcess} of its own), so PostgreSQL sees its connection closed; or its
 * process is stopped ({@code SIGSTOP}), a hang, so only the dead-man switch of three
 * heartbeats ends its session.
 */
final class TakeoverBenchmark {

	static final String RETURNS = "the holder's call returns";

	static final String KILLED = "the holder's process is killed (SIGKILL)";

	static final String HUNG = "the holder's process hangs (SIGSTOP)";

	/**
	 * The heartbeat of the hung holder: its lock ends three of them after its last one.
	 */
	static final Duration HUNG_HEARTBEAT = Duration.ofSeconds(1);

	/**
	 * Samples at scale 1: a returning holder in this JVM, a killed and a hung one each in
	 * a new JVM.
	 */
	static final int RETURN_SAMPLES = 40;

	static final int PROCESS_SAMPLES = 5;

	private static final Duration LONG_ENOUGH = Duration.ofSeconds(60);

	private final Settings settings;

	private final AdvisoryLockOperations locks;

	private final TestDatabase database;

	private final PgLocks pgLocks;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	TakeoverBenchmark(Settings settings, AdvisoryLockOperations locks, TestDatabase database) {
		this.settings = settings;
		this.locks = locks;
		this.database = database;
		this.pgLocks = new PgLocks(database.dataSource());
	}

	/**
	 * Run every way the holder ends.
	 * @return milliseconds from the holder's end to the waiter's start, per sample, for
	 * each way
	 */
	Map<String, double[]> run() throws Exception {
		try {
			Map<String, double[]> results = new LinkedHashMap<>();
			results.put(RETURNS, samples(this.settings.count(RETURN_SAMPLES), this::afterReturn));
			results.put(KILLED, samples(this.settings.count(PROCESS_SAMPLES),
					(namespace) -> afterProcess(namespace, Duration.ofSeconds(10), List.of("kill", "-KILL"))));
			results.put(HUNG, samples(this.settings.count(PROCESS_SAMPLES),
					(namespace) -> afterProcess(namespace, HUNG_HEARTBEAT, List.of("kill", "-STOP"))));
			return results;
		}
		finally {
			this.executor.shutdownNow();
		}
	}

	private static double[] samples(int count, Sample sample) throws Exception {
		double[] millis = new double[count];
		for (int i = 0; i < count; i++) {
			millis[i] = sample.millis("takeover-" + UUID.randomUUID());
		}
		return millis;
	}

	private double afterReturn(String namespace) throws Exception {
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicLong released = new AtomicLong();
		Future<?> holder = this.executor.submit(() -> this.locks.execute(invocation(namespace), (handle) -> {
			holding.countDown();
			await(release);
			released.set(System.nanoTime());
			return null;
		}));
		await(holding);
		Future<Long> waiter = waiter(namespace);
		this.pgLocks.awaitWaiters(AdvisoryLockKeys.of(namespace, "job"), 1);
		release.countDown();
		long started = waiter.get(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
		holder.get(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
		return (started - released.get()) / 1e6;
	}

	private double afterProcess(String namespace, Duration heartbeat, List<String> signal) throws Exception {
		Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
				HolderProcess.class.getName(), this.database.url(), this.database.username(), this.database.password(),
				namespace, "job", Long.toString(heartbeat.toMillis()))
			.redirectErrorStream(true)
			.start();
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = output.readLine(); !HolderProcess.HELD.equals(line); line = output.readLine()) {
				if (line == null) {
					throw new IllegalStateException("The holder process ended before it held the lock");
				}
			}
			Future<Long> waiter = waiter(namespace);
			this.pgLocks.awaitWaiters(AdvisoryLockKeys.of(namespace, "job"), 1);
			long signalled = System.nanoTime();
			signal(signal, process);
			long started = waiter.get(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
			return (started - signalled) / 1e6;
		}
		finally {
			process.destroyForcibly();
			process.waitFor(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
		}
	}

	private static void signal(List<String> command, Process process) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder(command.get(0), command.get(1), Long.toString(process.pid())).start();
		if (kill.waitFor() != 0) {
			throw new IllegalStateException(String.join(" ", command) + " " + process.pid() + " failed");
		}
	}

	private Future<Long> waiter(String namespace) {
		return this.executor.submit(
				() -> this.locks.execute(invocation(namespace).withTimeout(LONG_ENOUGH), (handle) -> System.nanoTime())
					.value());
	}

	private static LockRequest invocation(String namespace) {
		return LockRequest.of(namespace, "job").withScope(LockScope.INVOCATION);
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS)) {
				throw new IllegalStateException("Waited " + LONG_ENOUGH + " in vain");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@FunctionalInterface
	private interface Sample {

		double millis(String namespace) throws Exception;

	}

}
