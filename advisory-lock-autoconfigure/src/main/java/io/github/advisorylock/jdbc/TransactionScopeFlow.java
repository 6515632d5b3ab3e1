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
import java.sql.Savepoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockCallback;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.HeldLocks;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockSql.TryResult;
import io.github.advisorylock.jdbc.FencedWriteStatements.FenceResult;
import io.github.advisorylock.jdbc.FencedWriteStatements.FencedKey;
import io.github.advisorylock.jdbc.LockDataSources.BoundConnection;
import io.github.advisorylock.jdbc.LockSessionStatements.SessionMarker;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Takes {@link LockScope#TRANSACTION transaction-scoped} locks on the connection of the
 * current Spring transaction: one statement when the keys are free, a second one for a
 * {@link WaitMode#BLOCK} that found a key held, and never a release (PostgreSQL releases
 * them at COMMIT or ROLLBACK). The locks taken are recorded in
 * {@link TransactionLockSynchronization}.
 *
 * <p>
 * Keys that an enclosing invocation-scoped call of the same thread holds are not asked
 * for again, since its session would make this one wait for itself: inside a transaction,
 * the call is a fenced write instead ({@link FencedWriteStatements}).
 */
final class TransactionScopeFlow {

	private final LockDataSources dataSources;

	private final AcquisitionSupport support;

	/**
	 * Create the flow.
	 * @param dataSources the data sources whose transactions the locks join
	 * @param support the listeners, timeout and failures shared with invocation-scoped
	 * calls
	 */
	TransactionScopeFlow(LockDataSources dataSources, AcquisitionSupport support) {
		this.dataSources = dataSources;
		this.support = support;
	}

	/**
	 * Run a callback under the locks of a request, taken in the current transaction.
	 * @param request the request, of transaction scope
	 * @param keys its keys
	 * @param callback the work
	 * @return what the work returned, or that it was skipped
	 */
	<T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockKeys keys, LockCallback<T> callback) {
		if (!acquire(request, keys, true)) {
			return LockResult.skipped();
		}
		return LockResult.executed(callback.doWithLock(HeldLocks.transactionHandle()));
	}

	/**
	 * Acquire the locks in the current transaction, and tell the listeners how it ended.
	 * Keys an enclosing invocation-scoped call of this thread holds are not asked for
	 * again: its session would make this one wait for itself. Inside a transaction, they
	 * are fenced instead.
	 * @param throwIfBusy whether a {@code TRY} that finds a lock held throws rather than
	 * return {@code false}
	 * @return whether every lock is held; {@code false} for a {@code SKIP}, or a
	 * {@code TRY} that does not throw, that found one held
	 * @throws LockLostException if a fenced key's enclosing lock is found lost
	 */
	boolean acquire(LockRequest request, LockKeys requested, boolean throwIfBusy) {
		LockKeys keys = HeldLocks.notHeld(request.namespace(), request.mode(), requested,
				() -> heldLocksTarget(request));
		if (keys.keys().size() < requested.keys().size()
				&& TransactionSynchronizationManager.isActualTransactionActive()) {
			// Outside a transaction there is no write to fence: the call stays
			// re-entrant, as it always was.
			fence(request, requested, keys);
		}
		if (keys.keys().isEmpty()) {
			return true;
		}
		Acquisition acquisition = this.support.starting(request, keys);
		BoundConnection bound = null;
		Connection connection = null;
		LockAttempt attempt;
		try {
			bound = transactionBound(request.namespace(), request.dataSource());
			HeldLocks.checkNotSuspended(request.namespace(), request.mode(), keys,
					DataSourceUnwrapping.target(bound.resource()), bound.holder());
			connection = transactionConnection(request.namespace(), bound);
			attempt = attempt(connection, request, keys);
		}
		catch (RuntimeException ex) {
			release(connection, bound);
			acquisition.finished(Outcome.ERROR, ex);
			throw ex;
		}
		// The listeners hear the outcome before a diagnosis, which may take a second.
		acquisition.finished(attempt.outcome(), attempt.timedOut());
		try {
			return settle(attempt, acquisition, request, keys, bound, connection, throwIfBusy);
		}
		finally {
			release(connection, bound);
		}
	}

	/**
	 * Make the transaction a fenced write for the keys an enclosing invocation-scoped
	 * call of this thread holds: take their fence locks, then check that the enclosing
	 * sessions still hold them (see {@link FencedWriteStatements}), in one round trip. A
	 * key found no longer held is a loss the enclosing lock is told of at once, and the
	 * call fails before its work runs.
	 * @param request the request
	 * @param requested its keys
	 * @param notHeld those no enclosing call holds
	 * @throws LockLostException if an enclosing lock is lost
	 */
	private void fence(LockRequest request, LockKeys requested, LockKeys notHeld) {
		DataSource target = heldLocksTarget(request);
		if (target == null) {
			return;
		}
		List<FencedKey> fenced = new ArrayList<>();
		List<LockSession> sessions = new ArrayList<>();
		List<Long> keys = new ArrayList<>();
		List<String> values = new ArrayList<>();
		Duration idleTimeout = null;
		for (int i = 0; i < requested.keys().size(); i++) {
			long key = requested.keys().get(i);
			if (!notHeld.keys().contains(key)
					&& HeldLocks.enclosing(key, request.mode(), target) instanceof LockSession session) {
				SessionMarker marker = session.marker();
				if (marker == null) {
					// Lost, or released (a wrapped task still running after its call),
					// before it took a marker.
					session.checkHeld();
					throw releasedBeforeFencedWrite(session);
				}
				fenced.add(new FencedKey(key, marker));
				sessions.add(session);
				keys.add(key);
				values.add(requested.values().get(i));
				idleTimeout = (idleTimeout == null || session.deadMan().compareTo(idleTimeout) < 0) ? session.deadMan()
						: idleTimeout;
			}
		}
		if (fenced.isEmpty() || idleTimeout == null) {
			return;
		}
		LockKeys fencedKeys = new LockKeys(List.copyOf(keys), List.copyOf(values));
		Acquisition acquisition = this.support.starting(request, fencedKeys);
		acquisition.fenced();
		BoundConnection bound = null;
		Connection connection = null;
		FenceResult result;
		try {
			bound = transactionBound(request.namespace(), request.dataSource());
			// A suspended transaction of this thread that holds the fence (a REQUIRES_NEW
			// inside a fenced transaction) keeps it until after this one ends.
			HeldLocks.checkNotSuspended(request.namespace(), LockMode.EXCLUSIVE, fencedKeys,
					DataSourceUnwrapping.target(bound.resource()), bound.holder());
			connection = transactionConnection(request.namespace(), bound);
			result = FencedWriteStatements.fence(connection, fenced, idleTimeout, request.namespace());
			if (!result.lockable()) {
				throw AcquisitionSupport.explainRefusal(connection, request.namespace());
			}
		}
		catch (SQLException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw this.support.translateLockFailure(ex, request, fencedKeys);
		}
		catch (RuntimeException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw ex;
		}
		finally {
			release(connection, bound);
		}
		Long lostKey = result.lostKey();
		if (lostKey == null) {
			acquisition.finished(Outcome.ACQUIRED, null);
			// The transaction holds the fences: recorded as its keys, exclusive, so that
			// a suspension or a savepoint follows them.
			TransactionLockSynchronization.record(LockMode.EXCLUSIVE, keys,
					DataSourceUnwrapping.target(bound.resource()), bound.holder(), acquisition);
			return;
		}
		LockSession session = sessions.get(keys.indexOf(lostKey));
		if (session.isReleased()) {
			// The call ended and released the lock: no loss, a task that outlived it.
			IllegalStateException released = releasedBeforeFencedWrite(session);
			acquisition.finished(Outcome.ERROR, released);
			throw released;
		}
		IllegalStateException cause = new IllegalStateException(
				"a fenced write found that the lock's session no longer holds key " + lostKey
						+ " (its transaction, and the marker it held, ended)");
		session.lost(cause, "a fenced write found that its session no longer holds the key");
		LockLostException lost = new LockLostException(request.namespace(), List.of(values.get(keys.indexOf(lostKey))),
				cause);
		acquisition.lost(lost);
		throw lost;
	}

	private static IllegalStateException releasedBeforeFencedWrite(LockSession session) {
		return new IllegalStateException("The call that held advisory lock " + session.description()
				+ " (invocation scope) has ended, and released it, before this fenced write: wait inside the locked "
				+ "call for the work it fans out to");
	}

	/**
	 * Return the data source whose enclosing invocation-scoped locks a transaction-scoped
	 * call may find its keys among: the one it would lock on; without a transaction to
	 * tell, the one it names or the default, so that a nested call in an
	 * invocation-scoped one still finds the keys that one holds.
	 */
	@Nullable DataSource heldLocksTarget(LockRequest request) {
		BoundConnection bound = this.dataSources.boundIfUnique(request.namespace(), request.dataSource());
		if (bound != null) {
			return DataSourceUnwrapping.target(bound.resource());
		}
		String name = (request.dataSource() != null) ? request.dataSource() : this.dataSources.defaultName();
		return (name != null) ? DataSourceUnwrapping.target(this.dataSources.named(request.namespace(), name)) : null;
	}

	/**
	 * Try the keys and, when one is found held, do what the wait mode decides (see
	 * {@link LockAttempt#afterBusy}): a {@code BLOCK} waits for it and those after it.
	 */
	private LockAttempt attempt(Connection connection, LockRequest request, LockKeys keys) {
		Long busyKey = tryInTransaction(connection, request, keys);
		if (busyKey == null) {
			return LockAttempt.ACQUIRED;
		}
		return LockAttempt.afterBusy(request.waitMode(), busyKey,
				() -> this.support.waitFor(connection, request, keys, busyKey));
	}

	/**
	 * Act on what an attempt found, after the listeners heard it.
	 */
	private boolean settle(LockAttempt attempt, Acquisition acquisition, LockRequest request, LockKeys keys,
			BoundConnection bound, Connection connection, boolean throwIfBusy) {
		switch (attempt.outcome()) {
			case ACQUIRED -> {
				TransactionLockSynchronization.record(request.mode(), keys.keys(),
						DataSourceUnwrapping.target(bound.resource()), bound.holder(), acquisition);
				return true;
			}
			case SKIPPED -> {
				AcquisitionSupport.logSkipped(request, keys);
				return false;
			}
			case TIMEOUT -> throw this.support.busyException(request, keys, this.support.timeout(request),
					attempt.timedOut(), (diagnosis) -> diagnosis.afterTimeout(bound.dataSource(), connection,
							keys.waitedFor(attempt.busyKey()), request.mode()));
			default -> {
				// The keys before the one found held were taken, and stay held until the
				// transaction ends.
				List<Long> taken = keys.keys().subList(0, keys.keys().indexOf(attempt.busyKey()));
				if (!taken.isEmpty()) {
					TransactionLockSynchronization.record(request.mode(), taken,
							DataSourceUnwrapping.target(bound.resource()), bound.holder(), Acquisition.IGNORED);
				}
				if (throwIfBusy) {
					throw this.support.busyException(request, keys, null, null, (diagnosis) -> diagnosis
						.onConnection(connection, List.of(attempt.busyKey()), request.mode()));
				}
				return false;
			}
		}
	}

	private static void release(@Nullable Connection connection, @Nullable BoundConnection bound) {
		if (connection != null && bound != null) {
			DataSourceUtils.releaseConnection(connection, bound.resource());
		}
	}

	/**
	 * Try every key in the transaction, after the check that a lock is allowed. A
	 * {@code SKIP} of several keys that finds one held gives back those taken before it:
	 * a savepoint around the try, rolled back then (SKIP calls are rare enough to pay its
	 * two round trips).
	 * @return the first key found held, or {@code null} when every one was taken
	 */
	private @Nullable Long tryInTransaction(Connection connection, LockRequest request, LockKeys keys) {
		try {
			Savepoint savepoint = (request.waitMode() == WaitMode.SKIP && keys.keys().size() > 1)
					? connection.setSavepoint() : null;
			TryResult tried = AdvisoryLockStatements.tryLock(connection, request.mode(), keys.keys(),
					request.namespace());
			if (savepoint != null) {
				if (tried.busyKey() != null) {
					connection.rollback(savepoint);
				}
				connection.releaseSavepoint(savepoint);
			}
			if (!tried.lockable()) {
				throw AcquisitionSupport.explainRefusal(connection, request.namespace());
			}
			return tried.busyKey();
		}
		catch (SQLException ex) {
			throw this.support.translateLockFailure(ex, request, keys);
		}
	}

	/**
	 * Find the connection of the current transaction that a call joins, after checking
	 * the transaction.
	 * @param namespace the namespace of the call, for messages
	 * @param dataSource the name of the data source the call gives, or {@code null}
	 */
	private BoundConnection transactionBound(String namespace, @Nullable String dataSource) {
		if (dataSource != null) {
			// A wrong name is a mistake in the code, whatever the transaction: say it
			// first.
			this.dataSources.named(namespace, dataSource);
		}
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw LockFailures.noTransactionRefusal(namespace);
		}
		Integer declared = TransactionSynchronizationManager.getCurrentTransactionIsolationLevel();
		if (declared != null && declared > Connection.TRANSACTION_READ_COMMITTED) {
			throw LockFailures.isolationRefusal(namespace, isolationName(declared));
		}
		return this.dataSources.bound(namespace, dataSource);
	}

	/**
	 * Get the bound connection, checking that it is in the transaction.
	 */
	private Connection transactionConnection(String namespace, BoundConnection bound) {
		Connection connection = DataSourceUtils.getConnection(bound.resource());
		try {
			// A holder bound by a JdbcTemplate call outside this DataSource's
			// transaction: the lock would end with its statement. Drivers answer this
			// from local state, without a round trip. (A pool that hands out connections
			// with auto-commit off defeats this check; the transaction manager check
			// above remains.)
			if (connection.getAutoCommit()) {
				throw new LockTransactionException("Advisory lock '" + namespace + "' found the connection of its "
						+ "DataSource in auto-commit mode: the current transaction is managed for another resource, so "
						+ "the lock would be released at once. Use a transaction manager for this DataSource");
			}
		}
		catch (SQLException ex) {
			DataSourceUtils.releaseConnection(connection, bound.resource());
			throw this.support.translate(ex, "Check the transaction of advisory lock '" + namespace + "'");
		}
		catch (LockTransactionException ex) {
			DataSourceUtils.releaseConnection(connection, bound.resource());
			throw ex;
		}
		return connection;
	}

	private static String isolationName(int level) {
		return switch (level) {
			case Connection.TRANSACTION_REPEATABLE_READ -> "repeatable read";
			case Connection.TRANSACTION_SERIALIZABLE -> "serializable";
			default -> "isolation level " + level;
		};
	}

}
