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
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.jdbc.LockAcquisitionListener.Acquisition;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The locks of one invocation-scoped call, held by the transaction of their own connection: kept alive by a
 * heartbeat while the call runs, and released by rolling that transaction back when it ends.
 *
 * <p>The heartbeat runs on a scheduler thread and the release on the caller's; both use the connection under this
 * object's monitor. Every statement is bounded by the connection's network timeout, so neither can hang on a dead
 * link.
 */
final class InvocationLock implements LockHandle {

	private static final Log logger = LogFactory.getLog(InvocationLock.class);

	private final String namespace;

	private final LockMode mode;

	private final LockKeys keys;

	private final Connection connection;

	private final Acquisition acquisition;

	private final String heartbeatSql;

	private @Nullable ScheduledFuture<?> heartbeat;

	private boolean released;

	private volatile @Nullable Throwable loss;

	InvocationLock(String namespace, LockMode mode, LockKeys keys, Connection connection, Acquisition acquisition,
			String heartbeatSql) {
		this.namespace = namespace;
		this.mode = mode;
		this.keys = keys;
		this.connection = connection;
		this.acquisition = acquisition;
		this.heartbeatSql = heartbeatSql;
	}

	LockMode mode() {
		return this.mode;
	}

	LockKeys keys() {
		return this.keys;
	}

	Connection connection() {
		return this.connection;
	}

	/**
	 * Send a heartbeat at a fixed delay until the lock is released or lost.
	 */
	synchronized void startHeartbeat(ScheduledExecutorService scheduler, long periodMillis) {
		this.heartbeat = scheduler.scheduleWithFixedDelay(this::beat, periodMillis, periodMillis,
				TimeUnit.MILLISECONDS);
	}

	private synchronized void beat() {
		if (this.released || this.loss != null) {
			return;
		}
		try {
			InvocationLocks.keepAlive(this.connection, this.heartbeatSql);
		}
		catch (SQLException | RuntimeException ex) {
			lost(ex);
		}
	}

	private void lost(Exception ex) {
		this.loss = ex;
		if (this.heartbeat != null) {
			this.heartbeat.cancel(false);
		}
		logger.error("Advisory lock " + description() + " (invocation scope) was lost while its work runs: its "
				+ "connection failed a heartbeat (" + ex + "). Another instance may take it now; the work goes on "
				+ "until it calls checkHeld()", ex);
		this.acquisition.released(true);
	}

	/**
	 * Stop the heartbeat and roll the lock's transaction back, which releases the locks. A failure is logged, never
	 * thrown: it must not hide the call's own result or exception, and PostgreSQL releases the locks of a connection
	 * that fails anyway.
	 * @return whether the connection is still usable
	 */
	synchronized boolean release() {
		this.released = true;
		if (this.heartbeat != null) {
			this.heartbeat.cancel(false);
		}
		boolean usable = this.loss == null;
		if (usable) {
			try {
				this.connection.rollback();
			}
			catch (SQLException ex) {
				usable = false;
				logger.warn("Advisory lock " + description() + " (invocation scope): rolling back its transaction "
						+ "failed (" + ex + "); PostgreSQL releases the locks when it drops the connection", ex);
			}
			this.acquisition.released(false);
		}
		return usable;
	}

	@Override
	public boolean isLost() {
		return this.loss != null;
	}

	@Override
	public void checkHeld() {
		Throwable loss = this.loss;
		if (loss != null) {
			throw new LockLostException(this.namespace, this.keys.values(), loss);
		}
	}

	String description() {
		return this.namespace + ":" + this.keys.values();
	}

	@Override
	public String toString() {
		return "InvocationLock[" + description() + ", " + this.mode + (isLost() ? ", lost" : "") + "]";
	}

}
