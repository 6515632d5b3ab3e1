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
package io.github.advisorylock.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import io.github.advisorylock.testsupport.PgLocks;

/**
 * Runs calls at the same moment from several threads, each on its own connection, and
 * collects what each returned or threw. Waits are bounded only to catch hangs.
 */
public final class Concurrently {

	/** Bounds every wait, to turn a hang into a failure. */
	public static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	private Concurrently() {
	}

	/**
	 * Run {@code count} calls released together by a barrier.
	 * @param <T> what a call returns
	 * @param count how many calls
	 * @param call the call, given its index
	 * @return each call's outcome, in index order
	 */
	public static <T> List<Outcome<T>> run(int count, IntFunction<T> call) {
		CyclicBarrier start = new CyclicBarrier(count);
		ExecutorService executor = Executors.newFixedThreadPool(count);
		try {
			List<Future<T>> futures = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				int index = i;
				Callable<T> task = () -> {
					start.await(HANG_SECONDS, TimeUnit.SECONDS);
					return call.apply(index);
				};
				futures.add(executor.submit(task));
			}
			List<Outcome<T>> outcomes = new ArrayList<>();
			for (Future<T> future : futures) {
				outcomes.add(outcome(future));
			}
			return outcomes;
		}
		finally {
			// Not an assertion: a failure here must not hide the test's own.
			executor.shutdownNow();
			try {
				executor.awaitTermination(HANG_SECONDS, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static <T> Outcome<T> outcome(Future<T> future) {
		try {
			return new Outcome<>(future.get(HANG_SECONDS, TimeUnit.SECONDS), null);
		}
		catch (ExecutionException ex) {
			return new Outcome<>(null, ex.getCause());
		}
		catch (Exception ex) {
			throw new AssertionError("A concurrent call did not finish within " + HANG_SECONDS + " s", ex);
		}
	}

	/**
	 * What one call came to.
	 *
	 * @param <T> what the call returns
	 * @param value what it returned, if it did
	 * @param failure what it threw, if it did
	 */
	public record Outcome<T>(T value, Throwable failure) {

		/**
		 * Return whether the call returned.
		 * @return whether it did not throw
		 */
		public boolean succeeded() {
			return this.failure == null;
		}

	}

}
