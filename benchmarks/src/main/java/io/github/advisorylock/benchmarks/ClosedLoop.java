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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed-loop load: a number of callers that each call again as soon as their previous
 * call returns, for a warm-up and then a number of measurement windows. Each window is
 * one round: the calls that completed in it give its throughput and latency percentiles,
 * so start-up and wind-down are never measured.
 */
final class ClosedLoop {

	private ClosedLoop() {
	}

	/**
	 * Run the load.
	 * @param callers how many callers, each on a thread of its own
	 * @param warmup how long to run before the first window
	 * @param windows how many windows
	 * @param window the length of one window
	 * @param call what a caller does; returns an extra figure of the call (a wait, say),
	 * or 0
	 * @return the completed calls of each window
	 */
	static List<Window> run(int callers, Duration warmup, int windows, Duration window, Call call) {
		long start = System.nanoTime();
		long measureFrom = start + warmup.toNanos();
		long end = measureFrom + windows * window.toNanos();
		CountDownLatch go = new CountDownLatch(1);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> threads = new ArrayList<>();
		List<Samples> samples = new ArrayList<>();
		for (int i = 0; i < callers; i++) {
			int caller = i;
			Samples mine = new Samples();
			samples.add(mine);
			Thread thread = new Thread(() -> {
				try {
					go.await();
					for (long begin = System.nanoTime(); begin < end
							&& failure.get() == null; begin = System.nanoTime()) {
						long extra = call.call(caller);
						long finish = System.nanoTime();
						mine.add(finish, finish - begin, extra);
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "caller-" + i);
			threads.add(thread);
			thread.start();
		}
		go.countDown();
		for (Thread thread : threads) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
		if (failure.get() != null) {
			throw new IllegalStateException("A caller failed", failure.get());
		}
		List<Window> result = new ArrayList<>();
		for (int w = 0; w < windows; w++) {
			long from = measureFrom + w * window.toNanos();
			long to = from + window.toNanos();
			Samples inWindow = new Samples();
			for (Samples mine : samples) {
				mine.copyCompletedBetween(from, to, inWindow);
			}
			result.add(new Window(inWindow.size, window.toNanos() / 1e9, inWindow.latencyMillis(),
					inWindow.extraMillis()));
		}
		return result;
	}

	/**
	 * What one caller does once.
	 */
	@FunctionalInterface
	interface Call {

		/**
		 * Call once.
		 * @param caller the caller's index, from 0
		 * @return an extra figure of the call in nanoseconds, or 0
		 * @throws Exception on failure, which ends the load
		 */
		long call(int caller) throws Exception;

	}

	/**
	 * Return the p99 latency of each window.
	 * @param windows the windows
	 * @return their p99s, in milliseconds
	 */
	static double[] p99s(List<Window> windows) {
		return windows.stream().mapToDouble((window) -> window.latencyPercentile(99)).toArray();
	}

	/**
	 * Return the calls per second of each window.
	 * @param windows the windows
	 * @return their throughputs
	 */
	static double[] throughputs(List<Window> windows) {
		return windows.stream().mapToDouble(Window::throughput).toArray();
	}

	/**
	 * The calls completed in one window.
	 *
	 * @param calls how many
	 * @param seconds the window's length
	 * @param latencyMillis each call's latency
	 * @param extraMillis each call's extra figure
	 */
	record Window(int calls, double seconds, double[] latencyMillis, double[] extraMillis) {

		double throughput() {
			return this.calls / this.seconds;
		}

		double latencyPercentile(double percent) {
			return Summary.percentileOf(this.latencyMillis, percent);
		}

		double extraMean() {
			double sum = 0;
			for (double extra : this.extraMillis) {
				sum += extra;
			}
			return (this.extraMillis.length == 0) ? Double.NaN : sum / this.extraMillis.length;
		}

	}

	/**
	 * Growable arrays of (completion time, latency, extra), written by one thread.
	 */
	private static final class Samples {

		private long[] finish = new long[4096];

		private long[] latency = new long[4096];

		private long[] extra = new long[4096];

		private int size;

		void add(long finishedAt, long latencyNanos, long extraNanos) {
			if (this.size == this.finish.length) {
				int capacity = this.size * 2;
				this.finish = Arrays.copyOf(this.finish, capacity);
				this.latency = Arrays.copyOf(this.latency, capacity);
				this.extra = Arrays.copyOf(this.extra, capacity);
			}
			this.finish[this.size] = finishedAt;
			this.latency[this.size] = latencyNanos;
			this.extra[this.size] = extraNanos;
			this.size++;
		}

		void copyCompletedBetween(long from, long to, Samples target) {
			for (int i = 0; i < this.size; i++) {
				if (this.finish[i] >= from && this.finish[i] < to) {
					target.add(this.finish[i], this.latency[i], this.extra[i]);
				}
			}
		}

		double[] latencyMillis() {
			return millis(this.latency, this.size);
		}

		double[] extraMillis() {
			return millis(this.extra, this.size);
		}

		private static double[] millis(long[] nanos, int size) {
			double[] millis = new double[size];
			for (int i = 0; i < size; i++) {
				millis[i] = nanos[i] / 1e6;
			}
			return millis;
		}

	}

}
