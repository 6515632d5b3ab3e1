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
package io.github.advisorylock.testsupport;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.transaction.support.TransactionOperations;

/**
 * Threads for a test's concurrent callers (each on its own connection), stopped after
 * every test: interrupted, and awaited up to {@link PgLocks#HANG_TIMEOUT}, so that a
 * caller left waiting fails the test rather than outlive it. Register it on a field:
 * {@code @RegisterExtension final TestThreads threads = new TestThreads();}.
 */
public final class TestThreads implements Executor, AfterEachCallback {

	private final ExecutorService executor = Executors.newCachedThreadPool();

	/**
	 * Run a call on a thread of its own.
	 * @param <T> what the call returns
	 * @param call the call
	 * @return its future
	 */
	public <T> Future<T> submit(Callable<T> call) {
		return this.executor.submit(call);
	}

	/**
	 * Run a task on a thread of its own.
	 * @param task the task
	 * @return its future
	 */
	public Future<?> submit(Runnable task) {
		return this.executor.submit(task);
	}

	/**
	 * Run a call in a transaction of its own, on a thread of its own: a concurrent
	 * caller. A checked exception of the call fails the transaction as an
	 * {@link IllegalStateException}.
	 * @param <T> what the call returns
	 * @param transaction the transactions to run it in
	 * @param call the call
	 * @return its future
	 */
	public <T> Future<T> inTransaction(TransactionOperations transaction, Callable<T> call) {
		return submit(() -> transaction.execute((status) -> {
			try {
				return call.call();
			}
			catch (Exception ex) {
				throw (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
			}
		}));
	}

	/**
	 * Wait for a latch that another test thread counts down, up to
	 * {@link PgLocks#HANG_TIMEOUT}: from a callback that cannot throw a checked
	 * exception, such as a lock's work.
	 * @param latch the latch
	 * @throws AssertionError if it was not counted down in time
	 */
	public static void await(CountDownLatch latch) {
		try {
			if (!latch.await(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
				throw new AssertionError("A latch was not counted down within " + PgLocks.HANG_TIMEOUT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for a latch", ex);
		}
	}

	@Override
	public void execute(Runnable task) {
		this.executor.execute(task);
	}

	@Override
	public void afterEach(ExtensionContext context) throws InterruptedException {
		this.executor.shutdownNow();
		if (!this.executor.awaitTermination(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
			throw new AssertionError("Threads of " + context.getDisplayName() + " still run "
					+ PgLocks.HANG_TIMEOUT.toSeconds() + " s after it ended");
		}
	}

}
