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
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockCallback;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.core.HeldLocks;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.TransactionLockRecord;
import io.github.advisorylock.core.TransactionTimeouts;
import io.github.advisorylock.jdbc.LockSessionStatements.OpenedSession;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs work under {@link LockScope#INVOCATION invocation-scoped} locks on one database,
 * each call in a {@link LockSession lock session}: it takes a connection of its own
 * ({@link LockSessionConnections}), opens a READ COMMITTED, READ ONLY transaction on it
 * with a dead-man {@code idle_in_transaction_session_timeout} of three heartbeats, takes
 * the locks with the same statements as a transaction-scoped call, keeps the session
 * alive with a heartbeat while the work runs, and rolls the transaction back when the
 * work has returned or thrown. PostgreSQL releases the locks then, or as soon as the
 * connection dies, or when the holder stops sending heartbeats (a hung process, a cut
 * network) for three of them. {@link #hold} opens the same session for locks bound to no
 * thread, released when the caller says.
 */
final class LockSessionRunner implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockSessionRunner.class);

	private final LockSessionConnections connections;

	/**
	 * The innermost {@code DataSource} the locks are held on: what a nested call on the
	 * same one finds them by.
	 */
	private final DataSource target;

	private final Duration heartbeat;

	/**
	 * Three heartbeats, so that one late or lost heartbeat does not end a healthy
	 * holder's lock.
	 */
	private final Duration deadMan;

	private final String instance;

	private final AcquisitionSupport support;

	private final ScheduledThreadPoolExecutor scheduler;

	private final Set<LockSession> held = ConcurrentHashMap.newKeySet();

	private final TransactionTimeouts transactionTimeouts = new TransactionTimeouts(logger);

	private volatile boolean closed;

	/**
	 * Create the support.
	 * @param connections where the locks' connections come from, at most as many at once
	 * as heartbeat threads
	 * @param target the innermost {@code DataSource} they are connections of (see
	 * {@link DataSourceUnwrapping#target})
	 * @param heartbeat how often a held lock's session is checked; three of them make the
	 * dead-man switch
	 * @param instance names this process in each lock session's {@code application_name}
	 * @param support the listeners, timeout and failures shared with transaction-scoped
	 * calls
	 */
	LockSessionRunner(LockSessionConnections connections, DataSource target, Duration heartbeat, String instance,
			AcquisitionSupport support) {
		this.connections = connections;
		this.target = target;
		this.heartbeat = heartbeat;
		this.deadMan = heartbeat.multipliedBy(3);
		this.instance = instance;
		this.support = support;
		// One thread per held lock at most, so that a heartbeat stuck on a dead link
		// never delays another's.
		CustomizableThreadFactory threads = new CustomizableThreadFactory("advisory-lock-heartbeat-");
		threads.setDaemon(true);
		this.scheduler = new ScheduledThreadPoolExecutor(connections.maxConnections(), threads);
		this.scheduler.setKeepAliveTime(1, TimeUnit.MINUTES);
		this.scheduler.allowCoreThreadTimeOut(true);
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Run a callback under the locks of a request.
	 * @param request the request, of invocation scope
	 * @param keys its keys
	 * @param callback the work
	 * @return what the work returned, or that it was skipped
	 */
	<T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockKeys keys, LockCallback<T> callback) {
		LockKeys needed = HeldLocks.notHeld(request.namespace(), request.mode(), keys, () -> this.target);
		if (needed.keys().isEmpty()) {
			// Re-entrant: an enclosing call on this thread holds every key, and outlives
			// this one.
			return LockResult.executed(callback.doWithLock(HeldLocks.current()));
		}
		OpenSession open = open(request, needed, true);
		if (open == null) {
			return LockResult.skipped();
		}
		try {
			HeldLocks.push(open.lock());
			try {
				return LockResult.executed(callback.doWithLock(open.lock()));
			}
			finally {
				HeldLocks.pop(open.lock());
			}
		}
		finally {
			release(open);
		}
	}

	/**
	 * Take the locks of a request and hold them, bound to no thread, until the returned
	 * lock is released.
	 * @param request the request, of invocation scope
	 * @param keys its keys
	 * @return the held locks, or {@code null} for a skip
	 */
	@Nullable AcquiredLock hold(LockRequest request, LockKeys keys) {
		OpenSession open = open(request, keys, false);
		return (open != null) ? new AcquiredLock(open.lock(), () -> release(open)) : null;
	}

	/**
	 * Open a lock session and take its locks: the path both {@link #execute} and
	 * {@link #hold} share.
	 * @param request the request
	 * @param needed the keys to take
	 * @param refuseInTransaction whether an active transaction refuses the call (the work
	 * of an {@code execute} would run in it, outside the lock's)
	 * @return the held session, its heartbeat started, or {@code null} for a skip
	 */
	private @Nullable OpenSession open(LockRequest request, LockKeys needed, boolean refuseInTransaction) {
		// The listeners hear every refusal as an ERROR, as they do for a
		// transaction-scoped call.
		Acquisition acquisition = this.support.starting(request, needed);
		Connection connection;
		try {
			checkCanStart(request, needed, refuseInTransaction);
			connection = this.connections.obtain(request.namespace());
		}
		catch (RuntimeException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw ex;
		}
		LockSession lock = null;
		try {
			lock = acquire(connection, request, needed, acquisition);
			if (lock == null) {
				return null;
			}
		}
		finally {
			if (lock == null) {
				this.connections.release(connection, rollback(connection));
			}
		}
		OpenSession open = new OpenSession(lock, connection);
		RuntimeException closed = this.support.closedOr(request, null);
		if (closed != null) {
			// Granted as the template closed: the work must not start.
			release(open);
			throw closed;
		}
		this.held.add(lock);
		try {
			lock.startHeartbeat(this.scheduler, this.heartbeat.toMillis());
		}
		catch (RuntimeException ex) {
			// Closed meanwhile: nothing would keep the session alive.
			release(open);
			throw ex;
		}
		return open;
	}

	/**
	 * Release a session's locks and give its connection back.
	 */
	private void release(OpenSession open) {
		this.held.remove(open.lock());
		this.connections.release(open.connection(), open.lock().release());
	}

	/**
	 * Refuse a call that could protect nothing, or only wait for itself, before any
	 * connection is taken.
	 */
	private void checkCanStart(LockRequest request, LockKeys needed, boolean refuseInTransaction) {
		if (refuseInTransaction && TransactionSynchronizationManager.isActualTransactionActive()) {
			// After completion (an AFTER_COMMIT listener) the ended transaction still
			// shows, its synchronizations cleared; one that an inner REQUIRES_NEW
			// suspended looks the same from here and has not committed yet.
			throw LockFailures.enclosingTransactionRefusal(request.namespace(),
					!TransactionSynchronizationManager.isSynchronizationActive());
		}
		TransactionLockRecord.checkNotSuspended(request.namespace(), request.mode(), needed, this.target, null);
		if (this.closed) {
			throw new IllegalStateException("Invocation-scoped advisory lock '" + request.namespace() + "' was called "
					+ "after its AdvisoryLockTemplate was closed (the application is shutting down)");
		}
	}

	/**
	 * Open the lock's transaction and take its locks.
	 * @return the held lock, or {@code null} for a skip
	 */
	private @Nullable LockSession acquire(Connection connection, LockRequest request, LockKeys keys,
			Acquisition acquisition) {
		OpenedSession opened;
		// The session's idle time counts from the last statement: its time is taken
		// before it is sent.
		long sent = System.nanoTime();
		try {
			connection.setAutoCommit(false);
			// A wait is bounded by its lock_timeout; the network timeout only cuts a dead
			// link.
			setNetworkTimeout(connection, this.deadMan.plus(this.support.timeout(request)));
			opened = LockSessionStatements.beginInvocation(connection, request.mode(), keys.keys(), request.namespace(),
					applicationName(request.namespace()), this.deadMan.toMillis());
			if (!opened.tryResult().lockable()) {
				// It set READ COMMITTED itself, so only recovery is left; the refusal
				// reads which.
				throw AcquisitionSupport.explainRefusal(connection, request.namespace());
			}
		}
		catch (SQLException | RuntimeException ex) {
			throw failed(acquisition, ex, request, keys);
		}
		Duration transactionTimeout = this.transactionTimeouts.read(request.namespace(), opened.transactionTimeout());
		Long busyKey = opened.tryResult().busyKey();
		String keepAlive = LockSessionStatements.keepAliveSql(request.namespace(), this.deadMan.toMillis());
		LockAttempt attempt;
		try {
			attempt = (busyKey != null) ? LockAttempt.afterBusy(request.waitMode(), busyKey,
					() -> this.support.waitFor(connection, request, keys, busyKey)) : LockAttempt.ACQUIRED;
			if (attempt.outcome() == Outcome.ACQUIRED) {
				if (busyKey != null) {
					// The wait's portal would keep its snapshot: replace it, as the
					// opening statements did theirs.
					sent = System.nanoTime();
					LockSessionStatements.keepAlive(connection, keepAlive);
				}
				// From now on the network timeout bounds a heartbeat and the final
				// rollback.
				setNetworkTimeout(connection, this.deadMan);
			}
		}
		catch (SQLException | RuntimeException ex) {
			throw failed(acquisition, ex, request, keys);
		}
		acquisition.finished(attempt.outcome(), attempt.timedOut());
		switch (attempt.outcome()) {
			case SKIPPED -> {
				this.support.logSkipped(request, keys);
				return null;
			}
			case BUSY -> throw this.support.busyException(request, keys, null, null,
					(diagnosis) -> diagnosis.onConnection(connection, List.of(busyKey), request.mode()));
			case TIMEOUT -> {
				List<Long> waitedFor = keys.waitedFor(busyKey);
				throw this.support.busyException(request, keys, this.support.timeout(request), attempt.timedOut(),
						(diagnosis) -> {
							// The timeout aborted the transaction; after its rollback the
							// session can ask again.
							rollback(connection);
							return diagnosis.onConnection(connection, waitedFor, request.mode());
						});
			}
			default -> {
			}
		}
		return new LockSession(request.namespace(), request.mode(), keys, this.target, connection, acquisition,
				keepAlive, sent, this.deadMan, transactionTimeout);
	}

	/**
	 * Tell the listeners that the acquisition failed, and return what to throw: a
	 * driver's failure translated, any other as it is.
	 */
	private RuntimeException failed(Acquisition acquisition, Exception ex, LockRequest request, LockKeys keys) {
		RuntimeException translated = (ex instanceof SQLException sqlException)
				? this.support.translateLockFailure(sqlException, request, keys) : (RuntimeException) ex;
		// A wait the template's close cancelled fails as the shutdown.
		RuntimeException failure = this.support.closedOr(request, translated);
		acquisition.finished(Outcome.ERROR, failure);
		return failure;
	}

	private static void setNetworkTimeout(Connection connection, Duration timeout) throws SQLException {
		connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
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

	/**
	 * Stop the heartbeats, report the locks still held as lost (their connections close
	 * with the pool), and close the connections' source if it is this library's.
	 */
	@Override
	public void close() throws Exception {
		this.closed = true;
		this.scheduler.shutdownNow();
		IllegalStateException closing = new IllegalStateException("the application is shutting down");
		this.held.forEach((lock) -> lock.lost(closing, "its AdvisoryLockTemplate was closed while the work ran"));
		this.connections.close();
	}

	/**
	 * A held session and the connection it holds its locks on.
	 */
	private record OpenSession(LockSession lock, Connection connection) {

	}

}
