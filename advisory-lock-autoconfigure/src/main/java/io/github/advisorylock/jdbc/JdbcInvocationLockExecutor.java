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

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.HeldLock;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockCallback;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.core.KeyedAttempt;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockLifecycle;
import io.github.advisorylock.core.LockSettings;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.plan.InvocationLockPlan;
import io.github.advisorylock.core.session.HeldLocks;
import io.github.advisorylock.core.sql.LockSql.Opened;
import io.github.advisorylock.core.sql.PermitSql.OpenedLimit;
import io.github.advisorylock.core.transaction.TransactionLockRecord;
import io.github.advisorylock.core.transaction.TransactionTimeouts;
import io.github.advisorylock.jdbc.JdbcLockSessions.SessionRoute;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs an {@link LockScope#INVOCATION invocation-scoped} lock request on JDBC: on a
 * connection of the session's own ({@link JdbcLockSessions}), one round trip opens a READ
 * ONLY transaction with a dead-man switch of three heartbeats and tries the keys; a
 * heartbeat keeps it alive while the work runs, and a rollback releases the locks after.
 * PostgreSQL also releases them when the connection dies or the holder goes silent (a
 * hung process, a cut network). {@link #hold} opens the same session bound to no thread.
 *
 * @author advisory-lock authors
 */
final class JdbcInvocationLockExecutor implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(JdbcInvocationLockExecutor.class);

	private final JdbcAcquisitionSupport support;

	private final LockLifecycle lifecycle;

	private final JdbcLockSessions sessions;

	private final TransactionTimeouts transactionTimeouts = new TransactionTimeouts(logger);

	private final Set<JdbcLockSession> held = ConcurrentHashMap.newKeySet();

	private Duration heartbeat = Duration.ofSeconds(10);

	private String instanceName = ManagementFactory.getRuntimeMXBean().getName();

	/** A thread per held session: a heartbeat stuck on a dead link delays no other. */
	private final ScheduledThreadPoolExecutor scheduler;

	JdbcInvocationLockExecutor(JdbcAcquisitionSupport support, LockLifecycle lifecycle, JdbcLockSessions sessions) {
		this.support = support;
		this.lifecycle = lifecycle;
		this.sessions = sessions;
		CustomizableThreadFactory threads = new CustomizableThreadFactory("advisory-lock-heartbeat-");
		threads.setDaemon(true);
		this.scheduler = new ScheduledThreadPoolExecutor(1, threads);
		this.scheduler.setKeepAliveTime(1, TimeUnit.MINUTES);
		this.scheduler.allowCoreThreadTimeOut(true);
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	/** Set the heartbeat; three of them make the dead-man switch. */
	void setHeartbeat(Duration heartbeat) {
		this.heartbeat = LockSettings.checkHeartbeat(heartbeat);
	}

	void setInstanceName(String instanceName) {
		this.instanceName = instanceName;
	}

	/**
	 * Run a callback under the locks of a request.
	 * @return what the work returned, or that it was skipped
	 */
	<T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockKeys keys, LockSettings settings,
			LockCallback<T> callback) {
		SessionRoute route = this.sessions.route(request);
		InvocationLockPlan plan = InvocationLockPlan.of(request, keys, HeldLocks.enclosing(), route.target());
		if (plan.keys().keys().isEmpty()) {
			// An enclosing call on this thread holds every key, and outlives this one.
			return LockResult.executed(callback.doWithLock(HeldLocks.current()));
		}
		Open open = open(route, request, plan, settings, true);
		if (open == null) {
			return LockResult.skipped();
		}
		T value;
		try {
			HeldLocks.push(open.session());
			try {
				value = callback.doWithLock(open.session());
			}
			finally {
				HeldLocks.pop(open.session());
			}
		}
		catch (Throwable ex) {
			release(route, open);
			open.session().addLossTo(ex);
			throw ex;
		}
		release(route, open);
		// A loss while the work ran, or found by the release, is the call's outcome.
		open.session().checkHeld();
		return LockResult.executed(value);
	}

	/**
	 * Take the locks of a request and hold them, bound to no thread, until released.
	 * @return the held locks, or {@code null} for a skip
	 */
	@Nullable HeldLock hold(LockRequest request, LockKeys keys, LockSettings settings) {
		SessionRoute route = this.sessions.route(request);
		// Bound to no thread: no call encloses it.
		Open open = open(route, request, InvocationLockPlan.of(request, keys, List.of(), route.target()), settings,
				false);
		return (open != null) ? new JdbcAcquiredSession(open.session(), () -> release(route, open)) : null;
	}

	/**
	 * Open a lock session and take its locks, for {@link #execute} and {@link #hold}.
	 * @param refuseInTransaction whether an active transaction refuses the call (the work
	 * of an {@code execute} would run in it, outside the lock's)
	 * @return the held session, its heartbeat started, or {@code null} for a skip
	 */
	private @Nullable Open open(SessionRoute route, LockRequest request, InvocationLockPlan plan, LockSettings settings,
			boolean refuseInTransaction) {
		LockKeys needed = plan.keys();
		// Before the checks: the listeners hear a refusal as an ERROR.
		Acquisition acquisition = settings.listeners().starting(request, needed, plan.slots());
		Connection connection;
		try {
			checkCanStart(route, request, needed, refuseInTransaction);
			connection = route.obtain(request.namespace());
		}
		catch (RuntimeException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw ex;
		}
		JdbcLockSession session = null;
		try {
			session = acquire(connection, route, request, needed, plan.slots(), acquisition, settings.timeout(request));
		}
		finally {
			if (session == null) {
				route.release(connection, this.sessions.rollback(connection));
			}
		}
		if (session == null) {
			return null;
		}
		Open open = new Open(session, connection);
		RuntimeException closed = this.lifecycle.closedOr(request, null);
		if (closed != null) {
			// Granted as the template closed: the work must not start.
			release(route, open);
			throw closed;
		}
		this.held.add(session);
		try {
			int threads = this.sessions.maxSessions();
			if (this.scheduler.getCorePoolSize() < threads) {
				this.scheduler.setCorePoolSize(threads);
			}
			session.startHeartbeat(this.scheduler, this.heartbeat);
		}
		catch (RuntimeException ex) {
			// Closed meanwhile: nothing would keep the session alive.
			release(route, open);
			throw ex;
		}
		return open;
	}

	/** Refuse a call that could protect nothing, or only wait for itself. */
	private void checkCanStart(SessionRoute route, LockRequest request, LockKeys needed, boolean refuseInTransaction) {
		if (refuseInTransaction && TransactionSynchronizationManager.isActualTransactionActive()) {
			// After completion (an AFTER_COMMIT listener) the ended transaction still
			// shows, its synchronizations cleared; one that an inner REQUIRES_NEW
			// suspended looks the same from here and has not committed yet.
			throw LockFailures.enclosingTransactionRefusal(request,
					!TransactionSynchronizationManager.isSynchronizationActive());
		}
		TransactionLockRecord.checkNotSuspended(request, request.mode(), needed, route.target(), null);
		this.lifecycle.checkOpen(request);
	}

	/**
	 * Take the session's locks, or one permit of its limit, and tell the listeners.
	 * @return the held session, or {@code null} for a skip
	 */
	private @Nullable JdbcLockSession acquire(Connection connection, SessionRoute route, LockRequest request,
			LockKeys keys, @Nullable PermitSlots slots, Acquisition acquisition, Duration timeout) {
		Duration deadMan = this.heartbeat.multipliedBy(3);
		// The idle time counts from the last statement: timed before it is sent.
		long sent = System.nanoTime();
		Attempted attempted;
		try {
			// PostgreSQL keeps 63 bytes and shows other than printable ASCII as '?'.
			String applicationName = "advisory-lock " + request.namespace() + " @ " + this.instanceName;
			attempted = (slots != null) ? attemptPermit(connection, request, slots, applicationName, deadMan, timeout)
					: attempt(connection, request, keys, applicationName, deadMan, timeout);
			if (attempted.keyed().attempt().outcome() == Outcome.ACQUIRED) {
				if (attempted.waited()) {
					sent = System.nanoTime();
				}
				this.sessions.granted(connection, request, attempted.keyed().keys(), attempted.waited(), deadMan);
			}
		}
		catch (RuntimeException ex) {
			// A wait the template's close cancelled fails as the shutdown.
			RuntimeException failure = this.lifecycle.closedOr(request, ex);
			acquisition.finished(Outcome.ERROR, failure);
			throw failure;
		}
		KeyedAttempt keyed = attempted.keyed();
		LockAttempt attempt = keyed.attempt();
		keyed.tell(acquisition);
		if (attempt.outcome() == Outcome.SKIPPED) {
			this.support.logSkipped(request, keys);
			return null;
		}
		if (attempt.fails(true)) {
			throw this.sessions.busyException(connection, request, keyed.keys(), attempt,
					(attempt.outcome() == Outcome.TIMEOUT) ? timeout : null);
		}
		return this.sessions.session(connection, request, keyed.keys(), route, acquisition, sent, deadMan,
				this.transactionTimeouts.read(request.namespace(), attempted.transactionTimeout()));
	}

	/** Open the session's transaction with the try of its keys, then wait as asked. */
	private Attempted attempt(Connection connection, LockRequest request, LockKeys keys, String applicationName,
			Duration deadMan, Duration timeout) {
		// A wait is bounded by its lock_timeout; the network timeout only cuts a dead
		// link.
		Opened opened = this.sessions.begin(connection, request, keys, applicationName, deadMan, deadMan.plus(timeout));
		checkLockable(opened.tryResult().lockable(), connection, request);
		Long busyKey = opened.tryResult().busyKey();
		LockAttempt attempt = (busyKey != null) ? LockAttempt.afterBusy(request.waitMode(), busyKey,
				() -> this.support.waitFor(connection, request, keys, busyKey, timeout)) : LockAttempt.ACQUIRED;
		return new Attempted(new KeyedAttempt(attempt, keys), busyKey != null, opened.transactionTimeout());
	}

	/** Open the session's transaction with the try of its permits, then wait as asked. */
	private Attempted attemptPermit(Connection connection, LockRequest request, PermitSlots slots,
			String applicationName, Duration deadMan, Duration timeout) {
		OpenedLimit opened = this.sessions.beginLimit(connection, request, slots, applicationName, deadMan,
				deadMan.plus(timeout));
		checkLockable(opened.tried().lockable(), connection, request);
		Long taken = opened.tried().slot();
		if (taken != null) {
			return new Attempted(slots.acquired(taken), false, opened.transactionTimeout());
		}
		KeyedAttempt keyed = LockAttempt.afterBusy(request.waitMode(), slots.slots().get(0),
				() -> slots.waitInSlices(timeout,
						(resumed, slice, waited) -> JdbcTransactionLockStatements.waitPermitSlice(connection, request,
								slots, resumed, slice, waited, this.support),
						() -> JdbcTransactionLockStatements.endPermitWait(connection, request, slots, this.support)),
				slots::notTaken);
		return new Attempted(keyed, true, opened.transactionTimeout());
	}

	/** Refuse what the opening's check refused: recovery, as it sets READ COMMITTED. */
	private void checkLockable(boolean lockable, Connection connection, LockRequest request) {
		if (!lockable) {
			throw JdbcAcquisitionSupport.explainRefusal(connection, request);
		}
	}

	private void release(SessionRoute route, Open open) {
		this.held.remove(open.session());
		route.release(open.connection(), open.session().release());
	}

	/**
	 * Stop the heartbeats, report the locks still held as lost, and close the derived
	 * pools; the template closes its lifecycle first, so that no session opens meanwhile.
	 * @throws Exception if closing a derived pool fails
	 */
	@Override
	public void close() throws Exception {
		this.scheduler.shutdownNow();
		IllegalStateException closing = new IllegalStateException("the application is shutting down");
		this.held.forEach((session) -> session.lost(closing, "its template was closed while the work ran"));
		this.sessions.close();
	}

	/**
	 * What a session's opening and wait found.
	 *
	 * @param waited whether the keys were taken by a wait, after the opening statements
	 */
	private record Attempted(KeyedAttempt keyed, boolean waited, @Nullable String transactionTimeout) {

	}

	private record Open(JdbcLockSession session, Connection connection) {

	}

}
