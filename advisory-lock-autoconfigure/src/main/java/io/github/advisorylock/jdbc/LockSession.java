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
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.FenceSql.SessionMarker;
import io.github.advisorylock.core.HeldSession;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockSessions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A lock session over JDBC: the locks of one invocation-scoped call, held by the
 * transaction of their own connection, kept alive by a heartbeat while the call runs, and
 * released by rolling that transaction back when it ends. When it counts as lost is
 * {@link HeldSession}'s.
 *
 * <p>
 * The heartbeat runs on a scheduler thread, the release and a confirmation on the
 * caller's; all use the connection under this session's lock (a {@link ReentrantLock}, so
 * that a confirmation can give up waiting for it in time). Every statement is bounded by
 * the connection's network timeout, so none can hang on a dead link.
 */
final class LockSession extends HeldSession implements LockSessions.Session {

	private static final Log logger = LogFactory.getLog(LockSession.class);

	private final Connection connection;

	private final String heartbeatSql;

	/** Taken at the first fenced write, and held by the transaction until it ends. */
	private @Nullable SessionMarker marker;

	/** Guards the connection: one statement at a time. */
	private final ReentrantLock connectionLock = new ReentrantLock();

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
	}

	/**
	 * Return the session's marker, which a fenced write probes: taken on the session's
	 * connection, in its transaction, the first time it is asked for. A session that
	 * cannot take one is lost.
	 * @return the marker, or {@code null} if the session was released or lost before it
	 * took one
	 */
	@Nullable SessionMarker marker() {
		this.connectionLock.lock();
		try {
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
		finally {
			this.connectionLock.unlock();
		}
	}

	/**
	 * Return the lock that serializes the statements on the session's connection: the
	 * heartbeat's, a confirmation's, the marker's and the release's. Held, it stalls the
	 * heartbeat as a paused process would (a test holds it so).
	 * @return the lock
	 */
	ReentrantLock connectionLock() {
		return this.connectionLock;
	}

	@Override
	public void startHeartbeat(ScheduledExecutorService scheduler, Duration period) {
		this.heartbeat = scheduler.scheduleWithFixedDelay(this::beat, period.toMillis(), period.toMillis(),
				TimeUnit.MILLISECONDS);
	}

	private void beat() {
		this.connectionLock.lock();
		try {
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
		finally {
			this.connectionLock.unlock();
		}
	}

	/**
	 * Ask the server now whether the session still holds its locks: the heartbeat's
	 * statement on its connection, after a heartbeat in flight, within the given time. A
	 * session that does not answer in time counts as lost, as a frozen link would be.
	 * @param timeout how long to wait for the connection and its answer
	 * @throws LockLostException if the locks were lost, or are found lost now
	 * @throws IllegalStateException if they were released
	 */
	@Override
	public void confirm(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		boolean locked;
		try {
			locked = this.connectionLock.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			// Not an answer about the lock: keep the interrupt, and say what is known.
			Thread.currentThread().interrupt();
			checkHeld();
			return;
		}
		if (!locked) {
			lost(new SQLTimeoutException("No answer within " + timeout), "its connection did not answer a "
					+ "confirmation within " + timeout + ": a heartbeat before it was still waiting for the server");
			checkHeld();
			return;
		}
		try {
			checkHeld();
			Assert.state(isHeld(), () -> "Advisory lock " + description() + " was released: nothing to confirm");
			confirmNow(deadline, timeout);
		}
		finally {
			this.connectionLock.unlock();
		}
		checkHeld();
	}

	private void confirmNow(long deadline, Duration timeout) {
		long sent = System.nanoTime();
		int networkTimeout = -1;
		try {
			networkTimeout = this.connection.getNetworkTimeout();
			long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - sent);
			// The answer within the time left, and never later than a heartbeat's.
			long bound = Math.max(1, (networkTimeout > 0) ? Math.min(remaining, networkTimeout) : remaining);
			this.connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, bound));
			LockSessionStatements.keepAlive(this.connection, this.heartbeatSql);
			confirmed(sent);
		}
		catch (SQLException | RuntimeException ex) {
			lost(ex, "its connection failed a confirmation within " + timeout + " (" + ex + ")");
		}
		finally {
			restoreNetworkTimeout(networkTimeout);
		}
	}

	private void restoreNetworkTimeout(int networkTimeout) {
		if (networkTimeout < 0 || isLost()) {
			// A connection that failed is dropped at the release: nothing to restore.
			return;
		}
		try {
			this.connection.setNetworkTimeout(Runnable::run, networkTimeout);
		}
		catch (SQLException ex) {
			lost(ex, "its connection failed when its network timeout was restored after a confirmation (" + ex + ")");
		}
	}

	/**
	 * Stop the heartbeat and roll the lock's transaction back, which releases the locks.
	 * A failure is logged, never thrown: it must not hide the call's own result or
	 * exception, and PostgreSQL releases the locks of a connection that fails anyway.
	 * @return whether the connection is still usable
	 */
	@Override
	public boolean release() {
		this.connectionLock.lock();
		try {
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
				logger.warn(
						"Advisory lock " + description() + " (invocation scope): rolling back its transaction "
								+ "failed (" + ex + "); PostgreSQL releases the locks when it drops the connection",
						ex);
				return false;
			}
		}
		finally {
			this.connectionLock.unlock();
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
