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
package io.github.advisorylock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.HeldLocks;
import io.github.advisorylock.core.LockKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A lock session: the locks of one invocation-scoped call, held by the transaction of
 * their own connection: kept alive by a heartbeat while the call runs, and released by
 * rolling that transaction back when it ends.
 *
 * <p>
 * The lock counts as lost when a heartbeat fails, and also, without waiting for the next
 * one, as soon as no heartbeat has been confirmed for the dead-man interval: PostgreSQL
 * may have ended the session by then (a process paused for that long learns it at its
 * first {@link #checkHeld()}). The time of a heartbeat is taken before it is sent, so the
 * check errs on the early side of the server's.
 *
 * <p>
 * The heartbeat runs on a scheduler thread and the release on the caller's; both use the
 * connection under this object's monitor. Every statement is bounded by the connection's
 * network timeout, so neither can hang on a dead link. {@link #checkHeld()} and
 * {@link #isLost()} take no lock and make no call. A server {@code transaction_timeout}
 * is known at acquisition, so its end counts as a loss at that time, before the heartbeat
 * finds the session gone.
 */
final class LockSession implements HeldLocks.Invocation {

	private static final Log logger = LogFactory.getLog(LockSession.class);

	private final String namespace;

	private final LockMode mode;

	private final LockKeys keys;

	private final DataSource target;

	private final Connection connection;

	private final Acquisition acquisition;

	private final String heartbeatSql;

	private final long deadManNanos;

	/**
	 * When the lock's transaction ends on its own ({@code transaction_timeout}), or
	 * {@code Long.MAX_VALUE}.
	 */
	private final long endsAtNanos;

	private volatile long confirmedNanos;

	private volatile @Nullable ScheduledFuture<?> heartbeat;

	/**
	 * Held, then released or lost, once: whoever changes it first tells the listeners.
	 */
	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	/**
	 * Create the lock of a call, just acquired.
	 * @param target the innermost {@code DataSource} its connection is of (see
	 * {@link DataSourceUnwrapping#target})
	 * @param acquiredNanos {@link System#nanoTime()} before the statement that took the
	 * lock was sent
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @param transactionTimeout the server's {@code transaction_timeout}, which ends the
	 * lock's transaction, or {@code null} for none
	 */
	LockSession(String namespace, LockMode mode, LockKeys keys, DataSource target, Connection connection,
			Acquisition acquisition, String heartbeatSql, long acquiredNanos, Duration deadMan,
			@Nullable Duration transactionTimeout) {
		this.namespace = namespace;
		this.mode = mode;
		this.keys = keys;
		this.target = target;
		this.connection = connection;
		this.acquisition = acquisition;
		this.heartbeatSql = heartbeatSql;
		this.confirmedNanos = acquiredNanos;
		this.deadManNanos = deadMan.toNanos();
		this.endsAtNanos = (transactionTimeout != null) ? acquiredNanos + transactionTimeout.toNanos() : Long.MAX_VALUE;
	}

	@Override
	public LockMode mode() {
		return this.mode;
	}

	@Override
	public LockKeys keys() {
		return this.keys;
	}

	@Override
	public DataSource resource() {
		return this.target;
	}

	/**
	 * Send a heartbeat at a fixed delay until the lock is released or lost.
	 */
	void startHeartbeat(ScheduledExecutorService scheduler, long periodMillis) {
		this.heartbeat = scheduler.scheduleWithFixedDelay(this::beat, periodMillis, periodMillis,
				TimeUnit.MILLISECONDS);
	}

	private synchronized void beat() {
		if (this.state.get() != State.HELD || isLost()) {
			return;
		}
		long sent = System.nanoTime();
		try {
			LockSessionStatements.keepAlive(this.connection, this.heartbeatSql);
			this.confirmedNanos = sent;
		}
		catch (SQLException | RuntimeException ex) {
			lost(ex, "its connection failed a heartbeat (" + ex + ")");
		}
	}

	/**
	 * Record the loss of a held lock, from whichever thread sees it first: log it, stop
	 * the heartbeat, end the observation. A lock already released or lost stays as it is.
	 */
	void lost(Throwable cause, String how) {
		if (!this.state.compareAndSet(State.HELD, new State(cause))) {
			return;
		}
		stopHeartbeat();
		logger.error("Advisory lock " + description() + " (invocation scope) was lost while its work runs: " + how
				+ ". Another instance may take it now; the work goes on until it calls checkHeld()", cause);
		this.acquisition.released(true);
	}

	/**
	 * Stop the heartbeat and roll the lock's transaction back, which releases the locks.
	 * A failure is logged, never thrown: it must not hide the call's own result or
	 * exception, and PostgreSQL releases the locks of a connection that fails anyway.
	 * @return whether the connection is still usable
	 */
	synchronized boolean release() {
		stopHeartbeat();
		if (isLost() || !this.state.compareAndSet(State.HELD, State.RELEASED)) {
			// Perhaps still alive on the server: dropping the connection releases the
			// locks all the same.
			return false;
		}
		this.acquisition.released(false);
		try {
			this.connection.rollback();
			return true;
		}
		catch (SQLException ex) {
			logger.warn("Advisory lock " + description() + " (invocation scope): rolling back its transaction "
					+ "failed (" + ex + "); PostgreSQL releases the locks when it drops the connection", ex);
			return false;
		}
	}

	private void stopHeartbeat() {
		ScheduledFuture<?> heartbeat = this.heartbeat;
		if (heartbeat != null) {
			heartbeat.cancel(false);
		}
	}

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
			Throwable loss = this.state.get().loss();
			throw new LockLostException(this.namespace, this.keys.values(),
					(loss != null) ? loss : new IllegalStateException("lost"));
		}
	}

	@Override
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
