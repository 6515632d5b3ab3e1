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

import java.sql.SQLException;
import java.util.Collection;
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
import io.github.advisorylock.core.ContendedKeys;
import io.github.advisorylock.core.KeyedAttempt;
import io.github.advisorylock.core.LockAcquisitionListeners;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockLifecycle;
import io.github.advisorylock.core.LockSettings;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.plan.FencedKeys;
import io.github.advisorylock.core.plan.TransactionLockPlan;
import io.github.advisorylock.core.session.HeldLocks;
import io.github.advisorylock.core.session.HeldSession;
import io.github.advisorylock.core.transaction.TransactionLockRecord;
import io.github.advisorylock.core.transaction.TransactionLockSynchronization;
import io.github.advisorylock.jdbc.JdbcDataSources.BoundConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs a {@link LockScope#TRANSACTION transaction-scoped} lock request on JDBC, in the
 * thread's Spring transaction: it tries the keys {@link TransactionLockPlan} chose in one
 * statement on the connection joined through {@link DataSourceUtils}, and a
 * {@link WaitMode#BLOCK} that found one held waits in a second; a {@code BLOCK} of one
 * key found held lately waits at once, in one statement ({@link ContendedKeys}). The keys
 * taken are recorded in {@link TransactionLockSynchronization}, which follows the
 * transaction through suspension and savepoints until COMMIT or ROLLBACK releases them.
 *
 * @author advisory-lock authors
 */
final class JdbcTransactionLockExecutor {

	private final JdbcDataSources dataSources;

	private final JdbcAcquisitionSupport support;

	private final LockLifecycle lifecycle;

	private final JdbcTransactionLockStatements statements;

	private final ContendedKeys contended = new ContendedKeys();

	JdbcTransactionLockExecutor(JdbcDataSources dataSources, JdbcAcquisitionSupport support, LockLifecycle lifecycle) {
		this.dataSources = dataSources;
		this.support = support;
		this.lifecycle = lifecycle;
		this.statements = new JdbcTransactionLockStatements(support);
	}

	/**
	 * Run a callback under the locks of a request, taken in the current transaction.
	 * @return what the work returned, or that it was skipped
	 */
	<T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockKeys keys, LockSettings settings,
			LockCallback<T> callback) {
		if (!acquire(request, keys, settings, true)) {
			return LockResult.skipped();
		}
		return LockResult.executed(callback.doWithLock(HeldLocks.transactionHandle()));
	}

	/**
	 * Acquire the locks in the current transaction, and tell the listeners how it ended.
	 * @param throwIfBusy whether a {@code TRY} that finds a lock held throws rather than
	 * return {@code false}
	 * @return whether every lock is held
	 * @throws LockLostException if a fenced key's enclosing lock is found lost
	 */
	boolean acquire(LockRequest request, LockKeys requested, LockSettings settings, boolean throwIfBusy) {
		this.lifecycle.checkOpen(request);
		Collection<HeldSession> enclosing = HeldLocks.enclosing();
		TransactionLockPlan plan = TransactionLockPlan.of(request, requested, enclosing,
				enclosing.isEmpty() ? null : heldLocksTarget(request),
				TransactionSynchronizationManager.isActualTransactionActive());
		if (plan.fence() != null) {
			fence(request, plan.fence(), settings.listeners());
		}
		if (plan.keys().keys().isEmpty()) {
			// The enclosing calls hold every key.
			return true;
		}
		Acquisition acquisition = settings.listeners().starting(request, plan.keys(), plan.slots());
		BoundConnection bound = null;
		KeyedAttempt attempted;
		try {
			bound = bind(request, request.mode(), plan.keys());
			attempted = (plan.slots() != null) ? permit(bound, request, plan.slots(), settings)
					: new KeyedAttempt(attempt(bound, request, plan.keys(), settings), plan.keys());
		}
		catch (RuntimeException ex) {
			release(bound);
			// A wait the template's close cancelled fails as the shutdown.
			RuntimeException failure = this.lifecycle.closedOr(request, ex);
			acquisition.finished(Outcome.ERROR, failure);
			throw failure;
		}
		try {
			return settle(request, bound, attempted, acquisition, settings, throwIfBusy);
		}
		finally {
			release(bound);
		}
	}

	/** Tell the listeners, record what was taken, and fail as the outcome says. */
	private boolean settle(LockRequest request, BoundConnection bound, KeyedAttempt attempted, Acquisition acquisition,
			LockSettings settings, boolean throwIfBusy) {
		RuntimeException closed = this.lifecycle.closedOr(request, null);
		if (closed != null) {
			// Granted as the template closed: the work must not start. The transaction's
			// end releases the keys.
			acquisition.finished(Outcome.ERROR, closed);
			throw closed;
		}
		// The listeners hear the outcome before a diagnosis, which may take a second.
		attempted.tell(acquisition);
		LockAttempt attempt = attempted.attempt();
		LockKeys keys = attempted.keys();
		List<Long> taken = attempt.taken(keys.keys());
		if (!taken.isEmpty()) {
			TransactionLockSynchronization.record(request.mode(), taken, bound.target(), bound.holder(),
					(attempt.outcome() == Outcome.ACQUIRED) ? acquisition : Acquisition.IGNORED);
		}
		if (attempt.outcome() == Outcome.SKIPPED) {
			this.support.logSkipped(request, keys);
		}
		if (attempt.fails(throwIfBusy)) {
			throw this.statements.busyException(bound, request, keys, attempt,
					(attempt.outcome() == Outcome.TIMEOUT) ? settings.timeout(request) : null,
					LockFailures.limitHint(request, HeldSession.holderHint(attempt.foundHeld(), bound.target())));
		}
		return attempt.outcome() == Outcome.ACQUIRED;
	}

	/**
	 * Return whether the current transaction, or an enclosing invocation-scoped call,
	 * took every key on the data source the request would lock on, or on any when that is
	 * not known (no transaction, several bound, no default).
	 */
	boolean holds(LockRequest request, LockKeys keys) {
		@Nullable Object target = heldLocksTarget(request);
		return keys.keys()
			.stream()
			.allMatch((key) -> HeldLocks.holdsInvocation(key, target)
					|| TransactionLockSynchronization.holds(key, target));
	}

	/**
	 * Try the keys; when one is held, do what {@link LockAttempt#afterBusy} decides. A
	 * key found held recently is waited for at once ({@link ContendedKeys}).
	 */
	private LockAttempt attempt(BoundConnection bound, LockRequest request, LockKeys keys, LockSettings settings) {
		if (this.contended.waitsFirst(request, keys)) {
			return LockAttempt.afterWait(keys.keys().get(0),
					this.support.waitOne(bound.connection(), request, keys, settings.timeout(request)));
		}
		Long busyKey = this.statements.tryLock(bound, request, keys);
		if (busyKey == null) {
			return LockAttempt.ACQUIRED;
		}
		this.contended.foundHeld(busyKey);
		return LockAttempt.afterBusy(request.waitMode(), busyKey,
				() -> this.support.waitFor(bound.connection(), request, keys, busyKey, settings.timeout(request)));
	}

	/**
	 * Take one permit of a limit: a slot this transaction holds, else the first free one,
	 * else as the wait mode decides ({@link PermitSlots}).
	 * @return the attempt, with the slot taken or, when none was, every slot
	 */
	private KeyedAttempt permit(BoundConnection bound, LockRequest request, PermitSlots slots, LockSettings settings) {
		for (Long slot : slots.slots()) {
			if (TransactionLockSynchronization.holds(slot, bound.target())) {
				// A nested call of the same limit takes no second permit.
				return slots.acquired(slot);
			}
		}
		Long taken = this.statements.tryPermit(bound, request, slots);
		if (taken != null) {
			return slots.acquired(taken);
		}
		return LockAttempt.afterBusy(request.waitMode(), slots.slots().get(0), () -> slots.waitInSlices(
				settings.timeout(request),
				(resumed, slice, waited) -> JdbcTransactionLockStatements.waitPermitSlice(bound.connection(), request,
						slots, resumed, slice, waited, this.support),
				() -> JdbcTransactionLockStatements.endPermitWait(bound.connection(), request, slots, this.support)),
				slots::notTaken);
	}

	/**
	 * Make the transaction a fenced write for the keys an enclosing invocation-scoped
	 * call holds: take their fences, then check that the enclosing sessions still hold
	 * them. A key no longer held is a loss, told to the enclosing lock at once.
	 * @throws LockLostException if an enclosing lock is lost
	 */
	private void fence(LockRequest request, FencedKeys fenced, LockAcquisitionListeners listeners) {
		Acquisition acquisition = listeners.starting(request, fenced.keys(), null);
		acquisition.fenced();
		BoundConnection bound = null;
		Long lostKey;
		try {
			// Refused if a suspended transaction (a REQUIRES_NEW in a fenced one) holds
			// the fence: it keeps it until after this one ends.
			bound = bind(request, LockMode.EXCLUSIVE, fenced.keys());
			lostKey = this.statements.fence(bound, request, fenced);
		}
		catch (RuntimeException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw ex;
		}
		finally {
			release(bound);
		}
		if (lostKey != null) {
			throw fenced.lost(lostKey, request, acquisition);
		}
		acquisition.finished(Outcome.ACQUIRED, null);
		// The transaction holds the fences: recorded as its keys, exclusive, so that a
		// suspension or a savepoint follows them.
		TransactionLockSynchronization.record(LockMode.EXCLUSIVE, fenced.keys().keys(), bound.target(), bound.holder(),
				acquisition);
	}

	/**
	 * Return what the enclosing invocation-scoped locks of a call on the same database
	 * are known by: the data source the call would lock on; without a transaction to
	 * tell, the one it names or the default.
	 * @throws IllegalArgumentException if the request names an unknown data source
	 */
	private @Nullable DataSource heldLocksTarget(LockRequest request) {
		DataSource bound = this.dataSources.boundTarget(request);
		if (bound != null) {
			return bound;
		}
		String name = (request.dataSource() != null) ? request.dataSource() : this.dataSources.defaultName();
		return (name != null) ? JdbcDataSourceUnwrapping.target(this.dataSources.named(request.namespace(), name))
				: null;
	}

	/**
	 * Join the current transaction's connection, once it is checked actual, READ
	 * COMMITTED and managed; refuse keys a suspended transaction of this thread holds,
	 * since it resumes only after this call, which could only wait for itself.
	 * @throws LockTransactionException if a lock there would protect nothing
	 */
	private BoundConnection bind(LockRequest request, LockMode mode, LockKeys keys) {
		String namespace = request.namespace();
		if (request.dataSource() != null) {
			// A wrong name is a bug in the code, whatever the transaction: say it first.
			this.dataSources.named(namespace, request.dataSource());
		}
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw LockFailures.noTransactionRefusal(request);
		}
		TransactionLockPlan.checkReadCommitted(request,
				TransactionSynchronizationManager.getCurrentTransactionIsolationLevel());
		BoundConnection bound = this.dataSources.bound(request);
		try {
			// Bound by a JdbcTemplate call outside a transaction: the lock would end with
			// its statement. Answered from local state; a pool lending connections with
			// auto-commit off defeats it, and the transaction check above remains.
			if (bound.connection().getAutoCommit()) {
				throw LockFailures.autoCommitRefusal(request, "DataSource", "a transaction manager");
			}
			TransactionLockRecord.checkNotSuspended(request, mode, keys, bound.target(), bound.holder());
			return bound;
		}
		catch (SQLException ex) {
			release(bound);
			throw this.support.translate(ex, "Check the transaction of advisory lock '" + namespace + "'");
		}
		catch (RuntimeException ex) {
			release(bound);
			throw ex;
		}
	}

	/** Give the connection back to the transaction; the locks stay until it ends. */
	private void release(@Nullable BoundConnection bound) {
		if (bound != null) {
			DataSourceUtils.releaseConnection(bound.connection(), bound.resource());
		}
	}

}
