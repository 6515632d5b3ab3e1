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

package io.github.advisorylock.core.session;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The driver-neutral half of a lock session, the locks of one invocation-scoped call held
 * by the transaction of their own connection: whether they are held, released or lost,
 * and why. Each driver adds its heartbeat and its release.
 *
 * <p>
 * The lock counts as lost when a heartbeat fails, and also, without waiting for the next
 * one, as soon as no heartbeat has been confirmed for the dead-man interval: PostgreSQL
 * may have ended the session by then (a process paused for that long learns it at its
 * first {@link #checkHeld()}). The time of a heartbeat is taken before it is sent, so the
 * check errs on the early side of the server's. A server {@code transaction_timeout} is
 * known at acquisition, so its end counts as a loss at that time, before the heartbeat
 * finds the session gone. {@link #checkHeld()} and {@link #isLost()} take no lock and
 * make no call. A loss is logged at ERROR under the driver's class. Internal: used by the
 * driver adapters, not API.
 *
 * @author advisory-lock authors
 */
public abstract class HeldSession implements LockHandle {

	/**
	 * The sessions of this process that hold their locks, on every thread: what tells a
	 * busy error that its holder is one of this application's own calls.
	 */
	private static final Set<HeldSession> held = ConcurrentHashMap.newKeySet();

	private final Log logger = LogFactory.getLog(getClass());

	private final String namespace;

	private final LockMode mode;

	private final LockKeys keys;

	private final Object resource;

	private final Acquisition acquisition;

	private final Duration deadMan;

	private final long deadManNanos;

	/**
	 * When the lock's transaction ends on its own ({@code transaction_timeout}), or
	 * {@code Long.MAX_VALUE}.
	 */
	private final long endsAtNanos;

	private volatile long confirmedNanos;

	/**
	 * Held, then released or lost, once: whoever changes it first tells the listeners.
	 */
	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	/**
	 * Create the session of a call, just acquired.
	 * @param namespace the namespace of the call
	 * @param mode the mode its keys are held in
	 * @param keys its keys
	 * @param resource what a nested call on the same database finds it by, compared by
	 * identity
	 * @param acquisition the listeners' view of the acquisition
	 * @param acquiredNanos {@link System#nanoTime()} before the statement that took the
	 * lock was sent
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @param transactionTimeout the server's {@code transaction_timeout}, which ends the
	 * lock's transaction, or {@code null} for none
	 */
	protected HeldSession(String namespace, LockMode mode, LockKeys keys, Object resource, Acquisition acquisition,
			long acquiredNanos, Duration deadMan, @Nullable Duration transactionTimeout) {
		this.namespace = namespace;
		this.mode = mode;
		this.keys = keys;
		this.resource = resource;
		this.acquisition = acquisition;
		this.confirmedNanos = acquiredNanos;
		this.deadMan = deadMan;
		this.deadManNanos = deadMan.toNanos();
		this.endsAtNanos = (transactionTimeout != null) ? acquiredNanos + transactionTimeout.toNanos() : Long.MAX_VALUE;
		held.add(this);
	}

	/**
	 * Return the session of this process that holds a key, on any thread.
	 * @param key the key
	 * @param resource what the key is held on
	 * @return the session, or {@code null} when none of this process holds it
	 */
	public static @Nullable HeldSession holding(long key, Object resource) {
		for (HeldSession session : held) {
			if (session.resource == resource && session.keys.keys().contains(key) && session.isHeld()) {
				return session;
			}
		}
		return null;
	}

	/**
	 * Return what a busy error says when the key found held is one an invocation-scoped
	 * call of this application holds, one the caller is not inside: a task that call
	 * started, without its handle, waits for that call's own key.
	 * @param key the key found held
	 * @param resource what the key is held on
	 * @return the end of the message, or {@code null} when no call of this application
	 * holds the key
	 */
	public static @Nullable String holderHint(long key, Object resource) {
		HeldSession own = holding(key, resource);
		return (own == null) ? null
				: "the holder is this application's own invocation-scoped call on advisory lock " + own.description()
						+ ", and this call runs outside it (on another thread, or outside its "
						+ "subscription): a task that call starts holds its locks only when it runs wrapped, "
						+ "LockHandle.wrap(task) (HeldLock.wrap for a lock held beyond one call), and then its "
						+ "transaction-scoped lock is a fenced write rather than a wait for that call";
	}

	/**
	 * Return the mode its keys are held in.
	 * @return the mode
	 */
	public LockMode mode() {
		return this.mode;
	}

	/**
	 * Return the keys it holds.
	 * @return the keys
	 */
	public LockKeys keys() {
		return this.keys;
	}

	/**
	 * Return what a nested call on the same database finds it by.
	 * @return the resource, compared by identity
	 */
	public Object resource() {
		return this.resource;
	}

	/**
	 * Return the session's idle time after which PostgreSQL ends it: three heartbeats,
	 * which bound a fenced transaction's idle time too.
	 * @return the dead-man switch
	 */
	public Duration deadMan() {
		return this.deadMan;
	}

	/**
	 * Return whether the session is still held: neither released nor lost.
	 * @return whether it is
	 */
	protected boolean isHeld() {
		return this.state.get() == State.HELD;
	}

	/**
	 * Record that a heartbeat sent at the given time was confirmed.
	 * @param sentNanos {@link System#nanoTime()} before it was sent
	 */
	protected void confirmed(long sentNanos) {
		this.confirmedNanos = sentNanos;
	}

	/**
	 * Begin the release at the call's end: the session no longer answers for a key
	 * ({@link #holding}), and the driver rolls its transaction back only if it is still
	 * held. A lock found lost now (the dead-man switch ran out, or
	 * {@code transaction_timeout} ended it) is reported lost here.
	 * @return whether it is still held, so that the driver rolls the transaction back and
	 * then calls {@link #released()} or {@link #lostAtRelease}
	 */
	protected boolean releasing() {
		held.remove(this);
		return !isLost() && isHeld();
	}

	/**
	 * Record that the rollback at the call's end released the locks, which proves they
	 * were held until then, and tell the listeners; unless another thread found them lost
	 * meanwhile, which stays reported.
	 */
	protected void released() {
		if (this.state.compareAndSet(State.HELD, State.RELEASED)) {
			this.acquisition.released(false);
		}
	}

	/**
	 * Record that the rollback at the call's end failed: the connection is gone, and with
	 * it the locks, at a moment nobody knows, so they count as lost while the call ran.
	 * The call then fails with a {@link LockLostException}.
	 * @param cause the rollback's failure
	 */
	protected void lostAtRelease(Throwable cause) {
		if (markLost(cause)) {
			this.logger.error("Advisory lock " + description() + " (invocation scope) was lost before its call ended: "
					+ "rolling back its transaction failed (" + cause + "). Another instance may have taken it while "
					+ "the work ran; a call fails with a LockLostException, a held lock answers isLost()", cause);
			this.acquisition.released(true);
		}
	}

	/**
	 * Record the loss of a held lock, from whichever thread sees it first: log it, stop
	 * the heartbeat, end the observation. A lock already released or lost stays as it is.
	 * @param cause what showed it lost
	 * @param how how it was lost, for the log
	 */
	public void lost(Throwable cause, String how) {
		if (markLost(cause)) {
			this.logger.error("Advisory lock " + description() + " (invocation scope) was lost while its work runs: "
					+ how + ". Another instance may take it now; the work goes on until it calls checkHeld(), and a "
					+ "call fails with a LockLostException once its work has ended", cause);
			this.acquisition.released(true);
		}
	}

	/**
	 * Record a loss, unless the lock was released or lost before.
	 * @return whether this call recorded it (and tells it)
	 */
	private boolean markLost(Throwable cause) {
		held.remove(this);
		if (!this.state.compareAndSet(State.HELD, new State(cause))) {
			return false;
		}
		stopHeartbeat();
		return true;
	}

	/**
	 * Stop the heartbeat, if it runs.
	 */
	protected abstract void stopHeartbeat();

	@Override
	public boolean isLost() {
		State state = this.state.get();
		if (state != State.HELD) {
			return state.loss() != null;
		}
		long now = System.nanoTime();
		long silent = now - this.confirmedNanos;
		if (silent > this.deadManNanos) {
			lost(new IllegalStateException("no heartbeat confirmed for " + Duration.ofNanos(silent).toMillis()
					+ "ms, longer than the dead-man switch of " + Duration.ofNanos(this.deadManNanos).toMillis()
					+ "ms"),
					"no heartbeat was confirmed for longer than the dead-man switch (a paused process, or a slow "
							+ "link), after which PostgreSQL ends the session");
		}
		else if (now - this.endsAtNanos > 0) {
			lost(new IllegalStateException("transaction_timeout ended the lock's transaction"),
					"the server's transaction_timeout ended its transaction");
		}
		return this.state.get().loss() != null;
	}

	@Override
	public void checkHeld() {
		if (isLost()) {
			throw lostException();
		}
	}

	/**
	 * Keep the loss of the locks, if they were lost, with the failure of the work that
	 * ran under them, as a suppressed {@link LockLostException}: the work's own failure
	 * is what its call throws. A failure that is, or was caused by, a
	 * {@code LockLostException} tells of the loss already.
	 * @param failure what the work threw
	 */
	public void addLossTo(Throwable failure) {
		if (!isLost()) {
			return;
		}
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause()) {
			if (cause instanceof LockLostException) {
				return;
			}
		}
		failure.addSuppressed(lostException());
	}

	private LockLostException lostException() {
		Throwable loss = this.state.get().loss();
		return new LockLostException(this.namespace, this.keys.values(),
				(loss != null) ? loss : new IllegalStateException("lost"));
	}

	/**
	 * Return whether the call that held it has ended and released it (a lock lost first
	 * is lost, not released).
	 * @return whether it was released
	 */
	public boolean isReleased() {
		return this.state.get().released();
	}

	@Override
	public Runnable wrap(Runnable task) {
		return HeldLocks.bind(List.of(this), task);
	}

	@Override
	public <T> Callable<T> wrap(Callable<T> task) {
		return HeldLocks.bind(List.of(this), task);
	}

	/**
	 * Return the namespace and values, for messages.
	 * @return the description
	 */
	public String description() {
		return AdvisoryLockKeys.printable(this.namespace, this.keys.values());
	}

	@Override
	public String toString() {
		return "InvocationLock[" + description() + ", " + this.mode + ", " + this.state.get() + "]";
	}

	/**
	 * Whether the lock is held, released, or lost and why.
	 *
	 * @param released whether the call's end released it
	 * @param loss what showed it lost, or {@code null}
	 */
	private record State(boolean released, @Nullable Throwable loss) {

		static final State HELD = new State(false, null);

		static final State RELEASED = new State(true, null);

		State(Throwable loss) {
			this(false, loss);
		}

		@Override
		public String toString() {
			return this.released ? "released" : (this.loss != null) ? "lost" : "held";
		}

	}

}
