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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.LockCallback;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.jdbc.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.jdbc.LockAcquisitionListener.Outcome;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * Runs work under {@link LockScope#INVOCATION invocation-scoped} locks: each call takes a connection of its own
 * ({@link LockConnections}), opens a READ COMMITTED, READ ONLY transaction on it with a dead-man
 * {@code idle_in_transaction_session_timeout} of three heartbeats, takes the locks with the same statements as a
 * transaction-scoped call, keeps the session alive with a heartbeat while the work runs, and rolls the transaction
 * back when the work has returned or thrown. PostgreSQL releases the locks then, or as soon as the connection dies,
 * or when the holder stops sending heartbeats (a hung process, a cut network) for three of them.
 */
final class InvocationLocks implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(InvocationLocks.class);

	private final LockConnections connections;

	private final Duration heartbeat;

	private final String instance;

	private final ScheduledThreadPoolExecutor scheduler;

	/**
	 * Create the support.
	 * @param connections where the locks' connections come from
	 * @param heartbeat how often a held lock's session is checked; three of them make the dead-man switch
	 * @param instance names this process in each lock session's {@code application_name}
	 * @param maxConnections the most locks held at once, each with its heartbeat
	 */
	InvocationLocks(LockConnections connections, Duration heartbeat, String instance, int maxConnections) {
		this.connections = connections;
		this.heartbeat = heartbeat;
		this.instance = instance;
		// One thread per held lock at most, so that a heartbeat stuck on a dead link never delays another's.
		this.scheduler = new ScheduledThreadPoolExecutor(maxConnections,
				daemon(new CustomizableThreadFactory("advisory-lock-heartbeat-")));
		this.scheduler.setKeepAliveTime(1, TimeUnit.MINUTES);
		this.scheduler.allowCoreThreadTimeOut(true);
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	private static CustomizableThreadFactory daemon(CustomizableThreadFactory factory) {
		factory.setDaemon(true);
		return factory;
	}

	/**
	 * Run a callback under the locks of a request.
	 * @param request the request, of invocation scope
	 * @param keys its keys
	 * @param template the lock settings and statements shared with transaction-scoped calls
	 * @param callback the work
	 * @return what the work returned, or that it was skipped
	 */
	<T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockKeys keys, AdvisoryLockTemplate template,
			LockCallback<T> callback) {
		LockKeys needed = HeldInvocationLocks.notHeld(request.namespace(), request.mode(), keys);
		if (needed.keys().isEmpty()) {
			// Re-entrant: an enclosing call on this thread holds every key, and outlives this one.
			return LockResult.executed(callback.doWithLock(HeldInvocationLocks.current()));
		}
		if (TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new LockTransactionException("Invocation-scoped advisory lock '" + request.namespace() + "' was "
					+ "called inside a transaction that began before it: the lock would be released when the call "
					+ "returns, before that transaction commits, so another instance could act on what it has not "
					+ "committed yet. Call it outside the transaction (put @Transactional on the method itself or "
					+ "on what it calls), or use scope TRANSACTION");
		}
		Acquisition acquisition = template.starting(request, needed);
		Connection connection;
		try {
			connection = this.connections.obtain(request.namespace());
		}
		catch (RuntimeException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw ex;
		}
		Long lastSent = null;
		try {
			lastSent = acquire(connection, request, needed, template, acquisition);
		}
		finally {
			if (lastSent == null) {
				this.connections.release(connection, rollback(connection));
			}
		}
		if (lastSent == null) {
			return LockResult.skipped();
		}
		Duration deadMan = deadMan();
		InvocationLock lock = new InvocationLock(request.namespace(), request.mode(), needed, connection,
				acquisition, AdvisoryLockStatements.keepAlive(request.namespace(), deadMan.toMillis()), lastSent,
				deadMan);
		lock.startHeartbeat(this.scheduler, this.heartbeat.toMillis());
		HeldInvocationLocks.push(lock);
		try {
			return LockResult.executed(callback.doWithLock(lock));
		}
		finally {
			HeldInvocationLocks.pop(lock);
			this.connections.release(connection, lock.release());
		}
	}

	/**
	 * Open the lock's transaction and take its locks.
	 * @return when held, {@link System#nanoTime()} before the last statement was sent, from which the session's idle
	 * time counts; {@code null} for a skip
	 */
	private @Nullable Long acquire(Connection connection, LockRequest request, LockKeys keys, AdvisoryLockTemplate template,
			Acquisition acquisition) {
		Duration deadMan = deadMan();
		String sql = AdvisoryLockStatements.beginInvocation(request.mode(), keys.keys().size(), request.namespace(),
				deadMan.toMillis());
		Long busyKey;
		long sent = System.nanoTime();
		try {
			connection.setAutoCommit(false);
			// A wait is bounded by its lock_timeout; the network timeout only cuts a dead link.
			connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE,
					deadMan.plus(template.timeout(request)).toMillis()));
			busyKey = begin(connection, sql, request, keys);
		}
		catch (SQLException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw template.failed(ex, request, keys, sql);
		}
		catch (RuntimeException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw ex;
		}
		if (busyKey != null && request.waitMode() == WaitMode.SKIP) {
			acquisition.finished(Outcome.SKIPPED, null);
			if (logger.isDebugEnabled()) {
				logger.debug("Skipped the work under advisory lock " + request.namespace() + ":" + keys.values()
						+ ": held elsewhere");
			}
			return null;
		}
		if (busyKey != null && request.waitMode() == WaitMode.TRY) {
			acquisition.finished(Outcome.BUSY, null);
			throw template.busy(request, keys, null, null, (diagnosis) -> diagnosis.afterTry(connection,
					List.of(busyKey), request.mode()));
		}
		if (busyKey != null) {
			SQLException timedOut;
			try {
				timedOut = template.waitFor(connection, request, keys, busyKey);
			}
			catch (RuntimeException ex) {
				acquisition.finished(Outcome.ERROR, ex);
				throw ex;
			}
			if (timedOut != null) {
				acquisition.finished(Outcome.TIMEOUT, timedOut);
				List<Long> waitedFor = keys.keys().subList(keys.keys().indexOf(busyKey), keys.keys().size());
				throw template.busy(request, keys, template.timeout(request), timedOut, (diagnosis) -> {
					// The timeout aborted the transaction; after its rollback the session can ask again.
					rollback(connection);
					return diagnosis.afterTry(connection, waitedFor, request.mode());
				});
			}
		}
		try {
			if (busyKey != null) {
				// The wait's portal would keep its snapshot: replace it, as the opening statements did theirs.
				sent = System.nanoTime();
				keepAlive(connection, AdvisoryLockStatements.keepAlive(request.namespace(), deadMan.toMillis()));
			}
			// From now on the network timeout bounds a heartbeat and the final rollback.
			connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, deadMan.toMillis()));
		}
		catch (SQLException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw template.failed(ex, request, keys, sql);
		}
		acquisition.finished(Outcome.ACQUIRED, null);
		return sent;
	}

	/**
	 * Return the session's idle time after which PostgreSQL ends it: three heartbeats, so that one late or lost
	 * heartbeat does not end a healthy holder's lock.
	 */
	private Duration deadMan() {
		return this.heartbeat.multipliedBy(3);
	}

	/**
	 * Run the opening statements and the try, and warn when {@code transaction_timeout} would end the lock.
	 * @return the first key found held, or {@code null} when every one was taken
	 */
	private @Nullable Long begin(Connection connection, String sql, LockRequest request, LockKeys keys)
			throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, applicationName(request.namespace()));
			AdvisoryLockTemplate.bindKeys(connection, statement, 2, keys.keys());
			statement.execute();
			statement.getMoreResults();
			try (ResultSet settings = statement.getResultSet()) {
				settings.next();
				String transactionTimeout = settings.getString(2);
				if (transactionTimeout != null && !"0".equals(transactionTimeout)) {
					logger.warn("Invocation-scoped advisory lock '" + request.namespace() + "' runs with "
							+ "transaction_timeout = " + transactionTimeout + ": PostgreSQL ends its transaction, and "
							+ "so the lock, after that time, which is then reported as lost. Set transaction_timeout "
							+ "to 0 for the lock's role or database");
				}
			}
			statement.getMoreResults();
			try (ResultSet result = statement.getResultSet()) {
				AdvisoryLockTemplate.Tried tried = AdvisoryLockTemplate.tried(result, keys.keys());
				// SET TRANSACTION made it READ COMMITTED, so the try's isolation check passes.
				Assert.state(tried.lockable(), "READ COMMITTED was set for the lock's transaction");
				return tried.busyKey();
			}
		}
	}

	/**
	 * Send a lock session's keep-alive statement.
	 * @param connection the lock's connection
	 * @param sql from {@link AdvisoryLockStatements#keepAlive}
	 */
	static void keepAlive(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	private String applicationName(String namespace) {
		// PostgreSQL keeps 63 bytes and shows other than printable ASCII as '?'.
		return "advisory-lock " + namespace + " @ " + this.instance;
	}

	/**
	 * Roll back a lock transaction that holds nothing the caller keeps.
	 * @return whether the connection is still usable
	 */
	private static boolean rollback(Connection connection) {
		try {
			connection.rollback();
			return true;
		}
		catch (SQLException ex) {
			logger.debug("Rolling back the transaction of an invocation-scoped advisory lock failed", ex);
			return false;
		}
	}

	@Override
	public void close() throws Exception {
		this.scheduler.shutdownNow();
		this.connections.close();
	}

}
