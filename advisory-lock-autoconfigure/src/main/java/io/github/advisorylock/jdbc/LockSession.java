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

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.HeldSession;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.jdbc.LockSessionStatements.SessionMarker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A lock session over JDBC: the locks of one invocation-scoped call, held by the
 * transaction of their own connection, kept alive by a heartbeat while the call runs, and
 * released by rolling that transaction back when it ends. When it counts as lost is
 * {@link HeldSession}'s.
 *
 * <p>
 * The heartbeat runs on a scheduler thread and the release on the caller's; both use the
 * connection under this object's monitor. Every statement is bounded by the connection's
 * network timeout, so neither can hang on a dead link.
 */
final class LockSession extends HeldSession {

	private static final Log logger = LogFactory.getLog(LockSession.class);

	private final Connection connection;

	private final String heartbeatSql;

	/** Taken at the first fenced write, and held by the transaction until it ends. */
	private @Nullable SessionMarker marker;

	private final Duration deadMan;

	private volatile @Nullable ScheduledFuture<?> heartbeat;

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
		super(namespace, mode, keys, target, acquisition, acquiredNanos, deadMan, transactionTimeout);
		this.connection = connection;
		this.heartbeatSql = heartbeatSql;
		this.deadMan = deadMan;
	}

	/**
	 * Return the session's marker, which a fenced write probes: taken on the session's
	 * connection, in its transaction, the first time it is asked for. A session that
	 * cannot take one is lost.
	 * @return the marker, or {@code null} if the session was released or lost before it
	 * took one
	 */
	synchronized @Nullable SessionMarker marker() {
		if (this.marker == null && isHeld() && !isLost()) {
			try {
				this.marker = LockSessionStatements.mark(this.connection);
			}
			catch (SQLException | RuntimeException ex) {
				lost(ex, "its connection failed when a fenced write asked it for its marker (" + ex + ")");
			}
		}
		return this.marker;
	}

	/**
	 * Return the session's dead-man switch, three heartbeats, which a fenced
	 * transaction's idle time is bounded by too.
	 * @return the dead-man switch
	 */
	Duration deadMan() {
		return this.deadMan;
	}

	/**
	 * Send a heartbeat at a fixed delay until the lock is released or lost.
	 */
	void startHeartbeat(ScheduledExecutorService scheduler, long periodMillis) {
		this.heartbeat = scheduler.scheduleWithFixedDelay(this::beat, periodMillis, periodMillis,
				TimeUnit.MILLISECONDS);
	}

	private synchronized void beat() {
		if (!isHeld() || isLost()) {
			return;
		}
		long sent = System.nanoTime();
		try {
			LockSessionStatements.keepAlive(this.connection, this.heartbeatSql);
			confirmed(sent);
		}
		catch (SQLException | RuntimeException ex) {
			lost(ex, "its connection failed a heartbeat (" + ex + ")");
		}
	}

	/**
	 * Stop the heartbeat and roll the lock's transaction back, which releases the locks.
	 * A failure is logged, never thrown: it must not hide the call's own result or
	 * exception, and PostgreSQL releases the locks of a connection that fails anyway.
	 * @return whether the connection is still usable
	 */
	synchronized boolean release() {
		stopHeartbeat();
		if (!markReleased()) {
			// Perhaps still alive on the server: dropping the connection releases the
			// locks all the same.
			return false;
		}
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

	@Override
	protected void stopHeartbeat() {
		ScheduledFuture<?> heartbeat = this.heartbeat;
		if (heartbeat != null) {
			heartbeat.cancel(false);
		}
	}

}
