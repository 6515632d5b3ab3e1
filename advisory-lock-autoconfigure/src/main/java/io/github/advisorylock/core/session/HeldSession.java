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
import io.github.advisorylock.core.sql.FenceSql.IssuedToken;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The driver-neutral half of a lock session: whether the locks of one invocation-scoped
 * call, held by the transaction of their own connection, are held, released or lost, and
 * why; each driver adds its heartbeat and release. They count as lost when a heartbeat
 * fails, once none has been confirmed for the dead-man interval (checked without a lock
 * or a call to the server, so a heartbeat stuck on a dead link never blocks it;
 * docs/decisions.md, "Invocation scope"), or once a {@code transaction_timeout} known at
 * acquisition runs out. A heartbeat's time is taken before it is sent, so the check errs
 * on the early side of the server's. A loss is logged at ERROR under the driver's class.
 *
 * @author advisory-lock authors
 */
public abstract class HeldSession implements LockHandle {

	/** Every thread's held sessions: a busy error names its holder among them. */
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
	 * When {@code transaction_timeout} ends the transaction, or {@code Long.MAX_VALUE}.
	 */
	private final long endsAtNanos;

	private volatile long confirmedNanos;

	/** Leaves HELD once: whoever moves it tells the listeners. */
	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	/**
	 * Set before the final rollback frees the marker: a fencing token's check that finds
	 * it free then meets the call's end, not a loss.
	 */
	private volatile boolean releasing;

	/**
	 * Create the session of a call, just acquired.
	 * @param mode the mode its keys are held in
	 * @param keys its keys
	 * @param resource what a nested call on the same database finds it by, by identity
	 * @param acquisition the listeners' view of the acquisition
	 * @param acquiredNanos {@link System#nanoTime()} before the lock statement was sent
	 * @param deadMan the idle time after which PostgreSQL ends the session
	 * @param transactionTimeout the server's {@code transaction_timeout}, or {@code null}
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
	 * Send a heartbeat now, on the calling thread, on every session of this process that
	 * holds a key, and wait for each answer: a session ended from outside is then found
	 * lost at once, rather than at its next heartbeat. The test kit
	 * ({@code advisory-lock-test}) calls it after it terminated a holder's session, so
	 * that a test of a loss needs no wait; it blocks, so it is never called on a Reactor
	 * thread.
	 * @param key the key held
	 * @return how many sessions were asked
	 */
	public static int heartbeatHolders(long key) {
		int asked = 0;
		for (HeldSession session : held) {
			if (session.keys.keys().contains(key) && session.isHeld()) {
				session.heartbeatNow();
				asked++;
			}
		}
		return asked;
	}

	/**
	 * Return what a busy error adds when the key's holder is an invocation-scoped call of
	 * this application that the caller runs outside (a task it started, unwrapped).
	 * @param key the key found held
	 * @param resource what the key is held on
	 * @return the message's end, or {@code null} if no call of this application holds it
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

	/** Return the namespace of its keys. */
	public String namespace() {
		return this.namespace;
	}

	/** Return the mode its keys are held in. */
	public LockMode mode() {
		return this.mode;
	}

	/**
	 * Return the keys it holds.
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

	/** Return the idle time after which PostgreSQL ends the session: three heartbeats. */
	public Duration deadMan() {
		return this.deadMan;
	}

	/** Return whether the session is still held: neither released nor lost. */
	protected boolean isHeld() {
		return this.state.get() == State.HELD;
	}

	/**
	 * Record that a heartbeat was confirmed.
	 * @param sentNanos {@link System#nanoTime()} before sending, so the check errs early
	 */
	protected void confirmed(long sentNanos) {
		this.confirmedNanos = sentNanos;
	}

	/**
	 * Begin the release at the call's end: the session stops answering for its keys
	 * ({@link #holding}), and a lock found lost now is reported lost.
	 * @return whether it is still held, so that the driver rolls back, then calls
	 * {@link #released()} or {@link #lostAtRelease}
	 */
	protected boolean releasing() {
		this.releasing = true;
		held.remove(this);
		return !isLost() && isHeld();
	}

	/**
	 * Record that the call's final rollback released the locks, proving them held until
	 * then, and tell the listeners, unless another thread found them lost first.
	 */
	protected void released() {
		if (this.state.compareAndSet(State.HELD, State.RELEASED)) {
			this.acquisition.released(false);
		}
	}

	/**
	 * Record that the call's final rollback failed: the locks ended with the connection
	 * at an unknown moment, so the call fails with a {@link LockLostException}.
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

	/**
	 * Send a heartbeat now, on the calling thread, and wait for its answer or its
	 * failure, which makes the session lost.
	 */
	protected abstract void heartbeatNow();

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
	 * Add the locks' loss, if lost, to the work's failure, which the call throws, as a
	 * suppressed {@link LockLostException}, unless the failure is or was caused by one.
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

	/**
	 * Refuse a fencing token to a hold found lost, or to a call that has ended.
	 * @throws LockLostException if the locks were lost
	 * @throws IllegalStateException if the call has ended
	 */
	protected void checkTokenAllowed() {
		checkHeld();
		if (this.releasing) {
			throw endedBeforeToken();
		}
	}

	/**
	 * Return the token a fencing token's statement issued, after checking what it found:
	 * its connection in the session's database, where the marker is, and the marker held.
	 * A marker found free is a loss, unless the call's release freed it meanwhile.
	 * @param issued what the statement found
	 * @param marker the session's marker
	 * @return the token
	 * @throws LockLostException if the marker was free
	 * @throws IllegalStateException if the call ended meanwhile, or the statement ran in
	 * another database
	 */
	protected long checkIssued(IssuedToken issued, SessionMarker marker) {
		if (!issued.database().equals(marker.database())) {
			throw new IllegalStateException("The fencing token of advisory lock " + description() + " was asked "
					+ "in database '" + issued.database() + "', and the lock's session is in '" + marker.database()
					+ "', where its marker is: the connections of invocation-scoped locks must reach one server "
					+ "and database (no load-balanced hosts)");
		}
		Long token = issued.token();
		if (token != null) {
			return token;
		}
		if (this.releasing) {
			throw endedBeforeToken();
		}
		lost(new IllegalStateException("a fencing token's check found the lock's marker free: its session's "
				+ "transaction, and the keys it held, ended"),
				"a fencing token's check found that its session no longer holds its keys");
		throw isLost() ? lostException() : endedBeforeToken();
	}

	private IllegalStateException endedBeforeToken() {
		return new IllegalStateException("The call that held advisory lock " + description() + " (invocation scope) "
				+ "has ended, and released it, before its fencing token was asked for: ask for it inside the locked "
				+ "call, before the work that carries it");
	}

	private LockLostException lostException() {
		Throwable loss = this.state.get().loss();
		return new LockLostException(this.namespace, this.keys.values(),
				(loss != null) ? loss : new IllegalStateException("lost"));
	}

	/** Return whether its call has ended and released it; a lock lost first is not. */
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

	/** Return the namespace and values, for messages. */
	public String description() {
		return AdvisoryLockKeys.printable(this.namespace, this.keys.values());
	}

	@Override
	public String toString() {
		return "InvocationLock[" + description() + ", " + this.mode + ", " + this.state.get() + "]";
	}

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
