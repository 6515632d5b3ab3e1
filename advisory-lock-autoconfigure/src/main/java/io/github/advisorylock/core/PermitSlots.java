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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * The slots of a concurrency limit, of which a call holds one: slot 0, the plain key of
 * the request's one value, then those {@link AdvisoryLockKeys#permitSlot} derives from
 * it.
 *
 * <p>
 * PostgreSQL cannot wait for any one of several locks, so a call that finds every slot
 * held waits in slices of at most {@link #WAIT_SLICE}: each tries every slot again, then
 * waits inside PostgreSQL for one chosen at random. Waiters are served in no particular
 * order (docs/decisions.md, "Concurrency limits").
 *
 * @param slots the keys of the permits, slot 0 first
 * @param value the text of the value the plain key was derived from
 * @author advisory-lock authors
 */
public record PermitSlots(List<Long> slots, String value) {

	/**
	 * The longest a waiter waits for one slot before it tries them all again: how late,
	 * at worst, a freed slot nobody waits for is taken, and the inverse of a waiter's
	 * statements per second.
	 */
	public static final Duration WAIT_SLICE = Duration.ofMillis(50);

	/** A {@code lock_timeout} is a whole number of milliseconds, and 0 is "none". */
	private static final long MIN_SLICE_NANOS = Duration.ofMillis(1).toNanos();

	/**
	 * Return the slots of a request's limit.
	 * @param request a request with more than one permit
	 * @param keys its keys
	 * @return the slots
	 * @throws InvalidLockKeyException if there are several keys: a limit counts the calls
	 * on one resource
	 */
	public static PermitSlots of(LockRequest request, LockKeys keys) {
		if (keys.keys().size() != 1) {
			throw new InvalidLockKeyException(LockFailures.inCaller(request,
					"An advisory lock with permits = " + request.permits() + " in namespace '" + request.namespace()
							+ "' limits the calls on one resource, and this call names " + keys.keys().size()
							+ " distinct keys: give one key value, or take a plain lock (permits = 1) on several"));
		}
		long key = keys.keys().get(0);
		List<Long> slots = new ArrayList<>(request.permits());
		for (int slot = 0; slot < request.permits(); slot++) {
			slots.add(AdvisoryLockKeys.permitSlot(key, slot));
		}
		return new PermitSlots(List.copyOf(slots), keys.values().get(0));
	}

	/**
	 * Return the keys a call asks for: the slot an enclosing call holds, if any, which
	 * serves it rather than a second permit; else the request's keys.
	 */
	public LockKeys heldOr(LockKeys keys, Predicate<Long> held) {
		for (Long slot : this.slots) {
			if (held.test(slot)) {
				return taken(slot);
			}
		}
		return keys;
	}

	/**
	 * Wait for any permit, slice after slice, until the timeout, on the blocking stack.
	 * @param timeout how long to wait in all
	 * @param slice sends one slice of the wait
	 * @param end ends a wait that ran out of time, leaving the transaction usable
	 * @return the attempt, with the slot taken or, when none was, every slot
	 */
	public KeyedAttempt waitInSlices(Duration timeout, Slice slice, Runnable end) {
		long deadline = System.nanoTime() + timeout.toNanos();
		boolean resumed = false;
		Duration length;
		while ((length = nextSlice(deadline, resumed)) != null) {
			Long taken = slice.waitFor(resumed, length, chooseWaited());
			if (taken != null) {
				return acquired(taken);
			}
			resumed = true;
		}
		end.run();
		return timedOut();
	}

	/** Return the slot taken, as the one key the call holds. */
	public LockKeys taken(long slot) {
		return new LockKeys(List.of(slot), List.of(this.value));
	}

	/**
	 * Return every slot, slot 0 first, with the request's one value, for a busy error.
	 */
	public LockKeys all() {
		return new LockKeys(this.slots, List.of(this.value));
	}

	/** Return the attempt that took a slot, with the slot as its one key. */
	public KeyedAttempt acquired(long slot) {
		return new KeyedAttempt(LockAttempt.ACQUIRED, taken(slot), this.slots.indexOf(slot));
	}

	/** Return an attempt (busy, skipped or timed out) that took no slot. */
	public KeyedAttempt notTaken(LockAttempt attempt) {
		return new KeyedAttempt(attempt, all());
	}

	KeyedAttempt timedOut() {
		return notTaken(new LockAttempt(Outcome.TIMEOUT, this.slots.get(0), null));
	}

	/**
	 * Return the next slice: at most {@link #WAIT_SLICE} and what is left until the
	 * {@link System#nanoTime()} deadline, or {@code null} once a slice ran out at it. The
	 * first slice always runs, for at least a millisecond.
	 */
	@Nullable Duration nextSlice(long deadline, boolean resumed) {
		long left = deadline - System.nanoTime();
		if (resumed && left <= 0) {
			return null;
		}
		return Duration.ofNanos(Math.max(MIN_SLICE_NANOS, Math.min(WAIT_SLICE.toNanos(), left)));
	}

	/**
	 * Return the slot to wait for next, at random so that waiters spread over the slots.
	 * @return its index in SQL's arrays, from 1
	 */
	public int chooseWaited() {
		return ThreadLocalRandom.current().nextInt(this.slots.size()) + 1;
	}

	/** One slice of a blocking wait for any permit. */
	@FunctionalInterface
	public interface Slice {

		/**
		 * Try every slot, then wait for one for at most the slice.
		 * @param resumed whether a slice that ran out of time came before
		 * @param slice how long to wait for the chosen slot
		 * @param waited the index of the slot to wait for, from 1
		 * @return the slot taken, or {@code null} when the slice ran out of time
		 */
		@Nullable Long waitFor(boolean resumed, Duration slice, int waited);

	}

}
