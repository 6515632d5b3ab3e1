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

package io.github.advisorylock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.HeldLock;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;

/**
 * The lock of one key of an {@link AdvisoryLockRegistry}: local ownership by a
 * {@link ReentrantLock}, the advisory lock held by its owner from its first entry to its
 * last exit.
 *
 * @author advisory-lock authors
 */
final class RegistryLock implements FencedLock {

	private static final String COMPROMISED = "the integrity of data protected by this lock may have been "
			+ "compromised";

	/**
	 * The least time a re-entrant timed {@code tryLock} gives the database to confirm the
	 * lock, so that a very short time does not make a held lock lost on a busy machine.
	 */
	static final Duration MIN_CONFIRMATION = Duration.ofMillis(100);

	private final AdvisoryLockOperations locks;

	private final String namespace;

	private final String key;

	/** The key as messages print it. */
	private final String printed;

	private final ReentrantLock local = new ReentrantLock();

	/**
	 * The advisory lock while a thread owns this lock: written under {@link #local}, read
	 * by any thread for its fencing token.
	 */
	private volatile @Nullable HeldLock held;

	/** The unlocks each thread owes for holds a loss voided, until it locks afresh. */
	private final Map<Thread, Integer> voided = new ConcurrentHashMap<>();

	volatile long lastUsed;

	RegistryLock(AdvisoryLockOperations locks, String namespace, String key) {
		this.locks = locks;
		this.namespace = namespace;
		this.key = key;
		this.printed = AdvisoryLockKeys.printable(namespace, List.of(key));
	}

	@Override
	public void lock() {
		this.local.lock();
		try {
			if (reenter()) {
				return;
			}
			HeldLock held = null;
			while (held == null) {
				try {
					held = acquire(LockRequest.MAX_TIMEOUT);
				}
				catch (LockBusyException ex) {
					// Waited PostgreSQL's longest lock_timeout: lock() waits on.
				}
			}
			this.held = held;
		}
		catch (RuntimeException | Error ex) {
			this.local.unlock();
			throw ex;
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		this.local.lockInterruptibly();
		try {
			if (reenter()) {
				return;
			}
			HeldLock held = null;
			while (held == null) {
				if (Thread.interrupted()) {
					throw interrupted();
				}
				try {
					held = acquire(LockRequest.MAX_TIMEOUT);
				}
				catch (LockBusyException ex) {
					// As in lock().
				}
			}
			keepUnlessInterrupted(held);
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			this.local.unlock();
			throw ex;
		}
	}

	@Override
	public boolean tryLock() {
		if (!this.local.tryLock()) {
			return false;
		}
		try {
			if (this.local.getHoldCount() > 1) {
				return tryReenterOrGiveBack(LockRequest.MAX_TIMEOUT);
			}
			this.voided.remove(Thread.currentThread());
			Optional<HeldLock> held = this.locks.acquire(request().withWaitMode(WaitMode.SKIP));
			if (held.isEmpty()) {
				this.local.unlock();
				return false;
			}
			this.held = held.get();
			return true;
		}
		catch (RuntimeException | Error ex) {
			this.local.unlock();
			throw ex;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		long deadline = System.nanoTime() + unit.toNanos(time);
		if (!this.local.tryLock(time, unit)) {
			return false;
		}
		try {
			if (this.local.getHoldCount() > 1) {
				Duration remaining = Duration.ofNanos(deadline - System.nanoTime());
				return tryReenterOrGiveBack((remaining.compareTo(MIN_CONFIRMATION) < 0) ? MIN_CONFIRMATION : remaining);
			}
			this.voided.remove(Thread.currentThread());
			// PostgreSQL's lock_timeout counts whole milliseconds: round up.
			long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime() + 999_999);
			HeldLock held;
			try {
				held = (remaining > 0)
						? acquire(Duration.ofMillis(Math.min(remaining, LockRequest.MAX_TIMEOUT.toMillis())))
						: this.locks.acquire(request().withWaitMode(WaitMode.SKIP)).orElse(null);
			}
			catch (LockBusyException ex) {
				held = null;
			}
			if (held == null) {
				this.local.unlock();
				return false;
			}
			keepUnlessInterrupted(held);
			return true;
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			this.local.unlock();
			throw ex;
		}
	}

	@Override
	public void unlock() {
		if (!this.local.isHeldByCurrentThread()) {
			Integer owed = this.voided.remove(Thread.currentThread());
			if (owed != null) {
				if (owed > 1) {
					this.voided.put(Thread.currentThread(), owed - 1);
				}
				throw lost(null);
			}
			throw new IllegalMonitorStateException("The current thread does not hold the advisory lock " + this.printed
					+ ": only the thread that locked it unlocks it");
		}
		if (this.local.getHoldCount() > 1) {
			this.local.unlock();
			return;
		}
		HeldLock held = this.held;
		this.held = null;
		try {
			if (held != null) {
				LockLostException lost = lossOf(held);
				held.release();
				if (lost != null) {
					throw lost(lost);
				}
			}
		}
		finally {
			this.local.unlock();
		}
	}

	@Override
	public long fencingToken() {
		HeldLock held = this.held;
		if (held == null) {
			throw new IllegalStateException("Advisory lock " + this.printed + " is not held in this process: its "
					+ "fencing token is a hold's, so lock it first");
		}
		return held.fencingToken();
	}

	/** Refused, as by Spring Integration's registries: no condition spans processes. */
	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException(
				"Conditions are not supported by advisory locks of AdvisoryLockRegistry");
	}

	/**
	 * Take the lock again on the owning thread, once the database has confirmed that its
	 * session still holds it.
	 * @return whether this was a re-entry
	 * @throws LockLostException if the lock was lost (the thread's holds are void)
	 */
	private boolean reenter() {
		if (this.local.getHoldCount() == 1) {
			this.voided.remove(Thread.currentThread());
			return false;
		}
		HeldLock held = this.held;
		LockLostException lost = (held != null) ? lossConfirmed(held, LockRequest.MAX_TIMEOUT) : null;
		if (lost != null) {
			voidHolds(held);
			throw lost;
		}
		return true;
	}

	/**
	 * Take the lock again on the owning thread for a try, once the database has confirmed
	 * within the given time that its session still holds it; if not, void the thread's
	 * holds, and give back the one being taken too.
	 * @return whether it was taken
	 */
	private boolean tryReenterOrGiveBack(Duration within) {
		HeldLock held = this.held;
		if (held == null || lossConfirmed(held, within) == null) {
			return true;
		}
		voidHolds(held);
		this.local.unlock();
		return false;
	}

	/**
	 * Release a lost lock and every hold of the owning thread, the one being taken
	 * included, and remember the unlocks still owed for the others.
	 */
	private void voidHolds(HeldLock held) {
		int holds = this.local.getHoldCount();
		this.held = null;
		held.release();
		if (holds > 1) {
			this.voided.put(Thread.currentThread(), holds - 1);
		}
		// The caller releases the hold being taken.
		for (int i = 1; i < holds; i++) {
			this.local.unlock();
		}
	}

	/**
	 * Keep a lock just granted, or give it back if the thread was interrupted while it
	 * waited inside PostgreSQL.
	 */
	private void keepUnlessInterrupted(HeldLock held) throws InterruptedException {
		if (Thread.interrupted()) {
			held.release();
			throw interrupted();
		}
		this.held = held;
	}

	private InterruptedException interrupted() {
		return new InterruptedException("Interrupted while taking the advisory lock " + this.printed);
	}

	private HeldLock acquire(Duration timeout) {
		return this.locks.acquire(request().withTimeout(timeout))
			.orElseThrow(() -> new IllegalStateException("A BLOCK acquisition returned no lock"));
	}

	private LockRequest request() {
		return LockRequest.of(this.namespace, this.key).withScope(LockScope.INVOCATION);
	}

	private ConcurrentModificationException lost(@Nullable LockLostException cause) {
		return new ConcurrentModificationException("Advisory lock " + this.printed + " was lost before its unlock "
				+ "(its session ended, so PostgreSQL released it, and another instance may have held it meanwhile): "
				+ COMPROMISED, cause);
	}

	boolean isUnused() {
		return !this.local.isLocked() && !this.local.hasQueuedThreads();
	}

	@Override
	public String toString() {
		return "AdvisoryLock [" + this.printed + (this.local.isLocked() ? ", locked" : "") + "]";
	}

	/** Return the loss of a held lock, asking the database now, or {@code null}. */
	private static @Nullable LockLostException lossConfirmed(HeldLock held, Duration within) {
		try {
			held.confirmHeld(within);
			return null;
		}
		catch (LockLostException ex) {
			return ex;
		}
	}

	/** Return the loss of a held lock, or {@code null}. */
	private static @Nullable LockLostException lossOf(HeldLock held) {
		try {
			held.checkHeld();
			return null;
		}
		catch (LockLostException ex) {
			return ex;
		}
	}

}
