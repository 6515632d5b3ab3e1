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

package io.github.advisorylock.core;

import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What an acquisition found, before the listeners hear it; {@link #afterBusy} decides,
 * for every scope and driver, what a {@link WaitMode} does with a key held.
 *
 * @param outcome how it ended
 * @param busyKey the first key found held, or {@code null} when every key was taken
 * @param timedOut the driver's report of a wait that ran out of time, or {@code null}
 * @author advisory-lock authors
 */
public record LockAttempt(Outcome outcome, @Nullable Long busyKey, @Nullable Throwable timedOut) {

	/** A try or a wait that took every key. */
	public static final LockAttempt ACQUIRED = new LockAttempt(Outcome.ACQUIRED, null, null);

	/**
	 * Decide what a try that found a key held comes to: {@link WaitMode#BLOCK} waits,
	 * within its timeout; {@link WaitMode#TRY} is busy, and {@link WaitMode#SKIP}
	 * skipped, at once. The caller acts on the outcome after the listeners heard it.
	 * @param busyKey the first key the try found held
	 * @param boundedWait waits for that key and those after it; returns {@code null} when
	 * they were taken, or the driver's report of a wait that ran out of time
	 * @return what the acquisition found
	 */
	public static LockAttempt afterBusy(WaitMode waitMode, long busyKey,
			Supplier<? extends @Nullable Throwable> boundedWait) {
		return afterBusy(waitMode, busyKey, () -> afterWait(busyKey, boundedWait.get()), Function.identity());
	}

	/**
	 * The same decision for an asynchronous wait, its result wrapped as the driver wraps
	 * an attempt (a {@code Mono} on R2DBC).
	 * @param busyKey the first key the try found held
	 * @param boundedWait starts the wait for that key and those after it, its outcome
	 * read with {@link #afterWait}
	 * @param decided wraps an attempt decided without waiting
	 * @param <R> what the driver wraps an attempt in
	 * @return what the acquisition found, wrapped
	 */
	public static <R> R afterBusy(WaitMode waitMode, long busyKey, Supplier<R> boundedWait,
			Function<LockAttempt, R> decided) {
		return switch (waitMode) {
			case BLOCK -> boundedWait.get();
			case TRY -> decided.apply(new LockAttempt(Outcome.BUSY, busyKey, null));
			case SKIP -> decided.apply(new LockAttempt(Outcome.SKIPPED, busyKey, null));
		};
	}

	/**
	 * Return what a bounded wait found.
	 * @param busyKey the first key the try found held
	 * @param timedOut the driver's report of a wait that ran out of time, or {@code null}
	 * when every key was taken
	 */
	public static LockAttempt afterWait(long busyKey, @Nullable Throwable timedOut) {
		return (timedOut != null) ? new LockAttempt(Outcome.TIMEOUT, busyKey, timedOut) : ACQUIRED;
	}

	/**
	 * Return the first key found held, by an attempt that did not take every key.
	 * @return the key
	 * @throws IllegalStateException if the attempt took every key
	 */
	public long foundHeld() {
		Assert.state(this.busyKey != null, "The attempt took every key");
		return this.busyKey;
	}

	/**
	 * Return the keys a busy error names the holders of: every slot of a full limit, or
	 * the key found held (those after it were not tried).
	 * @param keys the keys of the attempt
	 * @return the keys to diagnose
	 * @throws IllegalStateException if the attempt took every key
	 */
	public List<Long> foundHeld(LockRequest request, LockKeys keys) {
		return (request.permits() > 1) ? keys.keys() : List.of(foundHeld());
	}

	/**
	 * Return the keys this attempt leaves held in a transaction: all when it took them;
	 * those before the key found held after a {@code TRY} (held until the transaction
	 * ends); none after a {@code SKIP}, which gives back those it took, or a timeout,
	 * which aborts the transaction.
	 * @param keys the keys asked for, in the order they were taken
	 * @return the keys held now
	 */
	public List<Long> taken(List<Long> keys) {
		return switch (this.outcome) {
			case ACQUIRED -> keys;
			case BUSY -> keys.subList(0, keys.indexOf(this.busyKey));
			default -> List.of();
		};
	}

	/**
	 * Return whether this attempt fails its call: it timed out, or a busy {@code TRY}
	 * throws rather than answer {@code false}.
	 * @param throwIfBusy whether a busy {@code TRY} throws
	 * @return whether the call gets a {@link io.github.advisorylock.LockBusyException}
	 */
	public boolean fails(boolean throwIfBusy) {
		return this.outcome == Outcome.TIMEOUT || (this.outcome == Outcome.BUSY && throwIfBusy);
	}

}
