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
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;

/**
 * The keys a try recently found held, so that a {@code BLOCK} of one of them waits at
 * once, in one statement, rather than try first (docs/decisions.md, "Cost and round
 * trips"). On a free key a try costs least; on a key that is held nearly all the time, as
 * a hot key under load is, a try is a round trip that finds it held, before the wait and
 * the commit.
 *
 * <p>
 * A lossy table shared by every thread of a template: a slot per key's hash, a key found
 * held replacing the one before it there, and a finding forgotten after {@link #MEMORY},
 * so that a key that cooled down goes back to its try. A race costs one try, or one wait
 * at once for a key that is free, which the wait takes as a try would. The mode is not
 * remembered: a shared request for a key found held waits at once too, where a try might
 * have found only shared holders. Only the transaction scope asks.
 *
 * @author advisory-lock authors
 */
public final class ContendedKeys {

	/** How long a key found held is waited for at once. */
	static final Duration MEMORY = Duration.ofSeconds(1);

	/** The table's slots: a power of two. */
	static final int SLOTS = 1024;

	private final AtomicLongArray keys = new AtomicLongArray(SLOTS);

	/** When each slot's key was found held, by the clock; 0 for never. */
	private final AtomicLongArray foundAt = new AtomicLongArray(SLOTS);

	private final LongSupplier clock;

	/**
	 * Create an empty table on {@link System#nanoTime()}.
	 */
	public ContendedKeys() {
		this(System::nanoTime);
	}

	ContendedKeys(LongSupplier clock) {
		this.clock = clock;
	}

	/**
	 * Return whether a request waits for its key at once: a {@code BLOCK} of one key, not
	 * a limit's, found held within {@link #MEMORY}.
	 * @param request the request
	 * @param keys its keys
	 * @return {@code true} to wait without a try first
	 */
	public boolean waitsFirst(LockRequest request, LockKeys keys) {
		if (request.waitMode() != WaitMode.BLOCK || request.permits() > 1 || keys.keys().size() != 1) {
			return false;
		}
		long key = keys.keys().get(0);
		int slot = slot(key);
		long at = this.foundAt.get(slot);
		return at != 0 && this.keys.get(slot) == key && this.clock.getAsLong() - at < MEMORY.toNanos();
	}

	/**
	 * Remember that a try found a key held.
	 * @param key the key
	 */
	public void foundHeld(long key) {
		int slot = slot(key);
		long now = this.clock.getAsLong();
		this.keys.set(slot, key);
		this.foundAt.set(slot, (now != 0) ? now : 1);
	}

	private static int slot(long key) {
		return (int) (key ^ (key >>> 32)) & (SLOTS - 1);
	}

}
