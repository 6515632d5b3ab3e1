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

package io.github.advisorylock.core;

import java.time.Duration;
import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockCallback;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;

/**
 * The sequence of a {@link LockScope#TRANSACTION transaction-scoped} lock request on the
 * blocking stack, written once: the keys an enclosing invocation-scoped call of the
 * thread holds are not asked for again (inside a transaction they are fenced instead),
 * the listeners hear the start, the driver binds the caller's transaction, the keys are
 * tried in one statement and, for a {@link WaitMode#BLOCK} that found one held, waited
 * for in a second; the listeners hear the outcome, and the keys taken are recorded in the
 * transaction, which releases them at COMMIT or ROLLBACK. Once the template is closed, no
 * acquisition starts and none in progress lets its work run
 * ({@link LockAcquisitions#close()}). The driver supplies its {@link TransactionBinding}
 * and its {@link LockStatements}. Internal: used by the driver adapters, not API.
 *
 * @param <B> the driver's bound connection
 * @author advisory-lock authors
 */
public final class TransactionLockFlow<B extends TransactionBinding.Bound> {

	private final LockAcquisitions acquisitions;

	private final TransactionBinding<B> binding;

	private final LockStatements<B> statements;

	/**
	 * Create the flow of one template.
	 * @param acquisitions the listeners and timeout of the template
	 * @param binding how the driver joins the caller's transaction
	 * @param statements the driver's statements
	 */
	public TransactionLockFlow(LockAcquisitions acquisitions, TransactionBinding<B> binding,
			LockStatements<B> statements) {
		this.acquisitions = acquisitions;
		this.binding = binding;
		this.statements = statements;
	}

	/**
	 * Run a callback under the locks of a request, taken in the current transaction.
	 * @param <T> what the work returns
	 * @param request the request, of transaction scope
	 * @param keys its keys
	 * @param callback the work
	 * @return what the work returned, or that it was skipped
	 */
	public <T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockKeys keys,
			LockCallback<T> callback) {
		if (!acquire(request, keys, true)) {
			return LockResult.skipped();
		}
		return LockResult.executed(callback.doWithLock(HeldLocks.transactionHandle()));
	}

	/**
	 * Acquire the locks in the current transaction, and tell the listeners how it ended.
	 * @param request the request, of transaction scope
	 * @param requested its keys
	 * @param throwIfBusy whether a {@code TRY} that finds a lock held throws rather than
	 * return {@code false}
	 * @return whether every lock is held; {@code false} for a {@code SKIP}, or a
	 * {@code TRY} that does not throw, that found one held
	 * @throws LockLostException if a fenced key's enclosing lock is found lost
	 */
	public boolean acquire(LockRequest request, LockKeys requested, boolean throwIfBusy) {
		this.acquisitions.checkOpen(request);
		PermitSlots slots = (request.permits() > 1) ? PermitSlots.of(request, requested) : null;
		if (slots != null) {
			// Inside an invocation-scoped call of the same limit, the call is served by
			// its permit, as a fenced write of that slot, rather than take a second.
			Object target = this.binding.heldLocksTarget(request);
			requested = slots.heldOr(requested, (slot) -> HeldLocks.holdsInvocation(slot, target));
		}
		// An enclosing session would make this one wait for itself.
		LockKeys keys = HeldLocks.notHeld(request, requested, () -> this.binding.heldLocksTarget(request));
		if (keys.keys().size() < requested.keys().size() && this.binding.inTransaction()) {
			// Outside a transaction there is no write to fence: the call stays
			// re-entrant, as it always was.
			fence(request, requested, keys);
		}
		if (keys.keys().isEmpty()) {
			return true;
		}
		Acquisition acquisition = this.acquisitions.starting(request, keys, slots);
		B bound = null;
		KeyedAttempt attempted;
		try {
			bound = bind(request, request.mode(), keys);
			attempted = (slots != null) ? permit(bound, request, slots)
					: new KeyedAttempt(attempt(bound, request, keys), keys);
		}
		catch (RuntimeException ex) {
			release(bound);
			// A wait the template's close cancelled fails as the shutdown.
			RuntimeException failure = this.acquisitions.closedOr(request, ex);
			acquisition.finished(Outcome.ERROR, failure);
			throw failure;
		}
		RuntimeException closed = this.acquisitions.closedOr(request, null);
		if (closed != null) {
			// Granted as the template closed: the work must not start. The keys stay held
			// until the transaction ends.
			release(bound);
			acquisition.finished(Outcome.ERROR, closed);
			throw closed;
		}
		// The listeners hear the outcome before a diagnosis, which may take a second.
		attempted.tell(acquisition);
		LockAttempt attempt = attempted.attempt();
		keys = attempted.keys();
		try {
			List<Long> taken = attempt.taken(keys.keys());
			if (!taken.isEmpty()) {
				this.binding.record(bound, request.mode(), taken,
						(attempt.outcome() == Outcome.ACQUIRED) ? acquisition : Acquisition.IGNORED);
			}
			if (attempt.outcome() == Outcome.SKIPPED) {
				this.acquisitions.logSkipped(request, keys);
			}
			if (attempt.fails(throwIfBusy)) {
				Duration timeout = (attempt.outcome() == Outcome.TIMEOUT) ? this.acquisitions.timeout(request) : null;
				throw this.statements.busyException(bound, request, keys, attempt, timeout,
						LockFailures.limitHint(request, holderHint(attempt, bound)));
			}
			return attempt.outcome() == Outcome.ACQUIRED;
		}
		finally {
			release(bound);
		}
	}

	/**
	 * Return whether the current transaction, or an enclosing invocation-scoped call,
	 * took every key on the resource the request would lock on, or on any when that is
	 * not known (no transaction, several bound, no default).
	 * @param request names the keys' resource, or not
	 * @param keys the keys
	 * @return whether it did
	 */
	public boolean holds(LockRequest request, LockKeys keys) {
		@Nullable Object target = this.binding.heldLocksTarget(request);
		return keys.keys()
			.stream()
			.allMatch((key) -> HeldLocks.holdsInvocation(key, target)
					|| TransactionLockSynchronization.holds(key, target));
	}

	/**
	 * Bind the transaction, and refuse keys a suspended transaction of this thread holds:
	 * it resumes only after this call, which could only wait for itself.
	 */
	private B bind(LockRequest request, LockMode mode, LockKeys keys) {
		B bound = this.binding.bind(request);
		try {
			TransactionLockRecord.checkNotSuspended(request, mode, keys, bound.target(), bound.holder());
			return bound;
		}
		catch (RuntimeException ex) {
			this.binding.release(bound);
			throw ex;
		}
	}

	/**
	 * Try the keys and, when one is found held, do what the wait mode decides (see
	 * {@link LockAttempt#afterBusy}): a {@code BLOCK} waits for it and those after it.
	 */
	private LockAttempt attempt(B bound, LockRequest request, LockKeys keys) {
		Long busyKey = this.statements.tryLock(bound, request, keys);
		if (busyKey == null) {
			return LockAttempt.ACQUIRED;
		}
		return LockAttempt.afterBusy(request.waitMode(), busyKey,
				() -> this.statements.waitLock(bound, request, keys, busyKey));
	}

	/**
	 * Take one permit of a limit: served from a slot this transaction holds already, else
	 * the first free one, else, as the wait mode decides, waited for in slices (see
	 * {@link PermitSlots}), busy or skipped.
	 * @return the attempt, with the slot taken or, when none was, every slot
	 */
	private KeyedAttempt permit(B bound, LockRequest request, PermitSlots slots) {
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
		return LockAttempt.afterBusy(request.waitMode(), slots.slots().get(0), () -> waitPermit(bound, request, slots),
				slots::notTaken);
	}

	/**
	 * Wait for any permit of a limit, slice after slice, until the request's timeout.
	 */
	private KeyedAttempt waitPermit(B bound, LockRequest request, PermitSlots slots) {
		return slots.waitInSlices(
				this.acquisitions.timeout(request), (resumed, slice, waited) -> this.statements.waitPermitSlice(bound,
						request, slots, resumed, slice, waited),
				() -> this.statements.endPermitWait(bound, request, slots));
	}

	/**
	 * Make the transaction a fenced write for the keys an enclosing invocation-scoped
	 * call of this thread holds: take their fence locks, then check that the enclosing
	 * sessions still hold them. A key found no longer held is a loss the enclosing lock
	 * is told of at once, and the call fails before its work runs.
	 * @param request the request
	 * @param requested its keys
	 * @param notHeld those no enclosing call holds
	 * @throws LockLostException if an enclosing lock is lost
	 */
	private void fence(LockRequest request, LockKeys requested, LockKeys notHeld) {
		Object target = this.binding.heldLocksTarget(request);
		FencedKeys fenced = (target != null) ? FencedKeys.of(HeldLocks.enclosing(), request, requested, notHeld, target)
				: null;
		if (fenced == null) {
			return;
		}
		Acquisition acquisition = this.acquisitions.starting(request, fenced.keys());
		acquisition.fenced();
		B bound = null;
		Long lostKey;
		try {
			// A suspended transaction of this thread that holds the fence (a REQUIRES_NEW
			// inside a fenced transaction) keeps it until after this one ends.
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
		this.binding.record(bound, LockMode.EXCLUSIVE, fenced.keys().keys(), acquisition);
	}

	/**
	 * Return what a busy error says when the key found held is one an invocation-scoped
	 * call of this application holds, one the caller is not inside.
	 */
	static @Nullable String holderHint(LockAttempt attempt, TransactionBinding.Bound bound) {
		HeldSession own = HeldSession.holding(attempt.foundHeld(), bound.target());
		return (own != null) ? LockFailures.ownHolderHint(own) : null;
	}

	private void release(@Nullable B bound) {
		if (bound != null) {
			this.binding.release(bound);
		}
	}

}
