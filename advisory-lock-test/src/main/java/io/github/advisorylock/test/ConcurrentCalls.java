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

package io.github.advisorylock.test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.test.TestSessions.TestSession;
import org.assertj.core.api.AssertProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * A number of concurrent calls of the application's code, to assert with AssertJ that its
 * lock serializes them:
 *
 * <pre class="code">
 * ConcurrentCalls calls = locks.concurrentCalls(4, () -&gt; service.request(userId));
 * assertThat(calls).areSerializedBy("setup_request", userId);
 * assertThat(calls.results()).containsOnlyOnce(true);
 * </pre>
 *
 * The calls run when the assertion runs, each on a thread of its own; a call that returns
 * a {@code Mono} or {@code Flux} is subscribed to and waited for there. See
 * {@link ConcurrentCallsAssert} for the procedure.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see AdvisoryLockTester#concurrentCalls(int, Callable)
 */
public final class ConcurrentCalls implements AssertProvider<ConcurrentCallsAssert> {

	private static final String TEST_TRANSACTION = "The test's thread is in a test-managed transaction "
			+ "(@Transactional on the test, or @JdbcTest, @DataJpaTest or @DataJdbcTest, which make each test "
			+ "transactional): the locks taken in it are held until the test ends, and the calls on other threads do "
			+ "not join it, so what they show proves nothing. Annotate the test method "
			+ "@Transactional(propagation = Propagation.NOT_SUPPORTED)";

	private final AdvisoryLockTester tester;

	private final int count;

	private final Callable<?> call;

	private volatile @Nullable List<@Nullable Object> results;

	ConcurrentCalls(AdvisoryLockTester tester, int count, Callable<?> call) {
		Assert.isTrue(count >= 2, () -> "Concurrent calls are at least 2, not " + count);
		this.tester = tester;
		this.count = count;
		this.call = call;
	}

	/**
	 * Return how many calls run at once.
	 * @return the number of calls
	 */
	public int count() {
		return this.count;
	}

	/**
	 * Return what each call returned, in the order the calls were started, once an
	 * assertion has run them: for a {@code Mono} its value, for a {@code Flux} the list
	 * of its values.
	 * @return the results
	 * @throws IllegalStateException if no assertion has run the calls yet
	 */
	public List<@Nullable Object> results() {
		List<@Nullable Object> results = this.results;
		Assert.state(results != null, "The calls have not run: assert on them first");
		return results;
	}

	@Override
	public ConcurrentCallsAssert assertThat() {
		return new ConcurrentCallsAssert(this);
	}

	/**
	 * Run the calls behind the key (every slot of a limit) held from outside, and fail
	 * unless they waited on it and then ran at most {@code permits} at a time.
	 */
	void runBehind(String namespace, Object value, int permits) {
		Assert.isTrue(permits >= 1, () -> "Permits are at least 1, not " + permits);
		Assert.state(!TransactionSynchronizationManager.isActualTransactionActive(), TEST_TRANSACTION);
		long key = this.tester.key(namespace, value);
		List<Long> keys = AdvisoryLockTester.permitKeys(key, permits);
		LockedBodies.Run run = this.tester.bodies().start(permits);
		ExecutorService threads = Executors.newFixedThreadPool(this.count, new CallThreads());
		try {
			List<Future<@Nullable Object>> calls = new ArrayList<>();
			// Both of the kit's sessions are open before the calls start, so that the
			// calls
			// cannot take the pool's last connections from under them.
			try (OutsideLock held = this.tester.hold(namespace, value, keys);
					TestSession observer = this.tester.openSession()) {
				for (int call = 0; call < this.count; call++) {
					int index = call;
					calls.add(threads.submit(() -> LockedBodies.asCall(index, () -> invoke(index))));
				}
				AdvisoryLockTester.awaitLocks(observer, (locks) -> {
					failIfAnyEnded(calls, run, held);
					List<PgLock> waiting = locks.stream()
						.filter((lock) -> keys.contains(lock.key()) && !lock.fence() && !lock.granted()
								&& lock.pid() != held.pid())
						.toList();
					failIfShared(waiting, held);
					return waiting.stream().map(PgLock::pid).distinct().count() >= this.count;
				}, () -> "all " + this.count + " calls to wait for " + held);
				run.released();
			}
			this.results = Collections.unmodifiableList(collect(calls));
		}
		finally {
			// A failed assertion leaves calls running, now behind a released lock: they
			// end
			// before the test does, so that none of their locks outlives it.
			threads.shutdown();
			awaitEnd(threads);
			this.tester.bodies().stop(run);
		}
		List<String> overlaps = run.overlaps();
		if (!overlaps.isEmpty()) {
			throw new AssertionError("The calls were not serialized by the lock of namespace '" + namespace
					+ "' and value '" + value + "': " + String.join("; ", overlaps));
		}
		if (run.bodiesEntered() == 0) {
			throw new AssertionError("None of the " + this.count + " calls was seen in the body of an @AdvisoryLocked "
					+ "method, which the assertion watches on the call's own thread (or, for a Mono or Flux, in its "
					+ "subscription): call the application's bean, not the object itself; a Kotlin suspend function, "
					+ "a body on another thread (@Async) or a lock taken with AdvisoryLockOperations is not watched: "
					+ "test those with hold and awaitWaiters");
		}
	}

	private @Nullable Object invoke(int index) throws Exception {
		Object result = this.call.call();
		if (LockedBodies.REACTOR_PRESENT && ReactiveCalls.isPublisher(result)) {
			return ReactiveCalls.block(index, result, TestSessions.HANG_TIMEOUT);
		}
		return result;
	}

	private void failIfAnyEnded(List<Future<@Nullable Object>> calls, LockedBodies.Run run, OutsideLock held) {
		List<String> early = new ArrayList<>(run.entriesWhileHeld());
		for (int call = 0; call < calls.size(); call++) {
			if (calls.get(call).isDone()) {
				early.add("call " + call + " ended (" + outcome(calls.get(call)) + ")");
			}
		}
		if (!early.isEmpty()) {
			throw new AssertionError("The calls did not wait on " + held + ": " + String.join("; ", early)
					+ ". A TRY or SKIP lock, a lock of another key, or none");
		}
	}

	private static void awaitEnd(ExecutorService threads) {
		try {
			if (!threads.awaitTermination(TestSessions.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
				threads.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			threads.shutdownNow();
		}
	}

	/**
	 * Fail when the calls wait for the key in shared mode: once it is free, every shared
	 * holder runs at once, so the lock does not serialize them.
	 */
	private static void failIfShared(List<PgLock> waiting, OutsideLock held) {
		List<PgLock> shared = waiting.stream().filter((lock) -> "ShareLock".equals(lock.mode())).toList();
		if (!shared.isEmpty()) {
			throw new AssertionError("The calls wait for " + held + " in shared mode (" + shared + "): once it is "
					+ "released, they all hold it at once, so it does not serialize them. A lock with "
					+ "mode = SHARED excludes only EXCLUSIVE holders");
		}
	}

	private static String outcome(Future<@Nullable Object> call) {
		try {
			return "returned " + call.get();
		}
		catch (ExecutionException ex) {
			return "threw " + ex.getCause();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
	}

	private List<@Nullable Object> collect(List<Future<@Nullable Object>> calls) {
		long deadline = System.nanoTime() + TestSessions.HANG_TIMEOUT.toNanos();
		List<@Nullable Object> results = new ArrayList<>();
		for (int call = 0; call < calls.size(); call++) {
			try {
				results.add(calls.get(call).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			catch (ExecutionException ex) {
				throw new AssertionError("Call " + call + " failed: " + ex.getCause(), ex.getCause());
			}
			catch (TimeoutException ex) {
				throw new AssertionError("Call " + call + " did not end within " + TestSessions.HANG_TIMEOUT.toSeconds()
						+ " s of the lock's release");
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the calls", ex);
			}
		}
		return results;
	}

	/**
	 * Daemon threads named after the calls, so that a thread dump of a hung test says
	 * whose they are.
	 */
	private static final class CallThreads implements ThreadFactory {

		private final AtomicInteger next = new AtomicInteger();

		@Override
		public Thread newThread(Runnable runnable) {
			Thread thread = new Thread(runnable, "advisory-lock-test-call-" + this.next.getAndIncrement());
			thread.setDaemon(true);
			return thread;
		}

	}

}
