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
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.ReactiveLockCallback;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * The sequence of a {@link LockScope#TRANSACTION transaction-scoped} lock request on the
 * reactive stack, written once, the twin of the blocking one
 * ({@code jdbc.TransactionLockExecutor}): at subscription, the keys an enclosing
 * invocation-scoped call of the subscriber holds are not asked for again (inside a
 * reactive transaction they are fenced instead), the listeners hear the start, the driver
 * binds the subscriber's reactive transaction (found in the Reactor context), the keys
 * are tried in one statement and, for a {@link WaitMode#BLOCK} that found one held,
 * waited for in a second; the listeners hear the outcome, and the keys taken are recorded
 * in the transaction, which releases them at COMMIT or ROLLBACK (Spring rolls a reactive
 * transaction back when its subscriber cancels). Nothing here blocks a thread. Loaded
 * only for reactive calls, as Spring's {@code ReactiveTransactionSupport} is. Internal:
 * used by the driver adapters, not API.
 *
 * @param <B> the driver's bound connection
 * @author advisory-lock authors
 */
public final class ReactiveTransactionLockFlow<B extends ReactiveTransactionBinding.Bound> {

	private final ReactiveLockAcquisitions acquisitions;

	private final ReactiveTransactionBinding<B> binding;

	private final ReactiveLockStatements<B> statements;

	/**
	 * Create the flow of one template.
	 * @param acquisitions the listeners and timeout of the template
	 * @param binding how the driver joins the subscriber's reactive transaction
	 * @param statements the driver's statements
	 */
	public ReactiveTransactionLockFlow(ReactiveLockAcquisitions acquisitions, ReactiveTransactionBinding<B> binding,
			ReactiveLockStatements<B> statements) {
		this.acquisitions = acquisitions;
		this.binding = binding;
		this.statements = statements;
	}

	/**
	 * Run a publisher under the locks of a request, taken in the subscriber's reactive
	 * transaction.
	 * @param <T> the type of its elements
	 * @param request the request, of transaction scope
	 * @param keys its keys
	 * @param callback makes the work
	 * @return the work's elements; none for a {@code SKIP} that found a key held
	 */
	public <T> Flux<T> execute(LockRequest request, LockKeys keys, ReactiveLockCallback<T> callback) {
		return acquire(request, keys, true)
			.flatMapMany((held) -> held ? Flux.from(callback.doWithLock(HeldLocks.transactionHandle())) : Flux.empty());
	}

	/**
	 * Acquire the locks in the subscriber's reactive transaction, and tell the listeners
	 * how it ended.
	 * @param request the request, of transaction scope
	 * @param requested its keys
	 * @param throwIfBusy whether a {@code TRY} that finds a lock held signals an error
	 * rather than {@code false}
	 * @return whether every lock is held; {@code false} for a {@code SKIP}, or a
	 * {@code TRY} that does not signal, that found one held
	 */
	public Mono<Boolean> acquire(LockRequest request, LockKeys requested, boolean throwIfBusy) {
		// A wrong name is a mistake in the code, whatever the transaction: say it first.
		@Nullable Object target = this.binding.heldLocksTarget(request);
		return Mono.deferContextual((context) -> {
			this.acquisitions.checkOpen(request);
			// Inside an invocation-scoped call of the same limit, the call is served by
			// its permit, as a fenced write of that slot, rather than take a second.
			LockKeys asked = (request.permits() > 1) ? PermitSlots.of(request, requested)
				.heldOr(requested, (slot) -> ReactiveHeldLocks.holds(context, slot, target)) : requested;
			// An enclosing session would make this one wait for itself.
			LockKeys keys = ReactiveHeldLocks.notHeld(context, request, asked, target);
			Mono<Boolean> acquired = keys.keys().isEmpty() ? Mono.just(true)
					: acquireInTransaction(context, request, keys, throwIfBusy);
			FencedKeys fenced = (target != null && keys != asked)
					? FencedKeys.of(ReactiveHeldLocks.enclosing(context), request, asked, keys, target) : null;
			return (fenced != null) ? fence(context, request, fenced).then(acquired) : acquired;
		});
	}

	/**
	 * Return whether the subscriber's reactive transaction, or an enclosing
	 * invocation-scoped call, took every key on the connection factory the request would
	 * lock on.
	 * @param request names the keys' connection factory, or not
	 * @param keys the keys
	 * @return whether it did
	 */
	public Mono<Boolean> holds(LockRequest request, LockKeys keys) {
		@Nullable Object target = this.binding.heldLocksTarget(request);
		return Mono.deferContextual((context) -> TransactionSynchronizationManager.forCurrentTransaction()
			.map((transaction) -> keys.keys()
				.stream()
				.allMatch((key) -> ReactiveHeldLocks.holds(context, key, target)
						|| ReactiveTransactionLockSynchronization.holds(transaction, key, target)))
			.onErrorResume(NoTransactionException.class, (ex) -> Mono
				.just(keys.keys().stream().allMatch((key) -> ReactiveHeldLocks.holds(context, key, target)))));
	}

	private Mono<Boolean> acquireInTransaction(ContextView context, LockRequest request, LockKeys keys,
			boolean throwIfBusy) {
		return TransactionSynchronizationManager.forCurrentTransaction()
			.onErrorMap(NoTransactionException.class, (ex) -> LockFailures.noReactiveTransactionRefusal(request))
			.flatMap((transaction) -> {
				PermitSlots slots = (request.permits() > 1) ? PermitSlots.of(request, keys) : null;
				Acquisition acquisition = this.acquisitions.starting(request, keys, slots, context);
				B bound;
				try {
					bound = this.binding.bind(transaction, request);
					// A transaction suspended around this one resumes only after it: the
					// call could only wait for itself.
					ReactiveTransactionLockSynchronization.checkNotSuspended(transaction, request, request.mode(), keys,
							bound.target(), bound.holder());
				}
				catch (RuntimeException ex) {
					acquisition.finished(Outcome.ERROR, ex);
					return Mono.error(ex);
				}
				Mono<KeyedAttempt> attempted = (slots != null) ? permit(transaction, bound, request, slots)
						: attempt(bound, request, keys).map((attempt) -> new KeyedAttempt(attempt, keys));
				return attempted
					// A wait the template's close cancelled fails as the shutdown.
					.onErrorMap(RuntimeException.class, (ex) -> this.acquisitions.closedOr(request, ex))
					.flatMap((keyed) -> {
						// Granted as the template closed: the work must not start.
						RuntimeException closed = this.acquisitions.closedOr(request, null);
						return (closed != null) ? Mono.<KeyedAttempt>error(closed) : Mono.just(keyed);
					})
					.doOnError((ex) -> acquisition.finished(Outcome.ERROR, ex))
					.doOnCancel(() -> acquisition.finished(Outcome.ERROR, cancelled(request)))
					.flatMap((keyed) -> {
						// The listeners hear the outcome before it becomes an error.
						keyed.tell(acquisition);
						return settle(keyed.attempt(), acquisition, transaction, bound, request, keyed.keys(),
								throwIfBusy);
					});
			});
	}

	/**
	 * Make the subscriber's transaction a fenced write for the keys an enclosing
	 * invocation-scoped call of the subscriber holds: take their fence locks, then check
	 * that the enclosing sessions still hold them. A key found no longer held is a loss
	 * the enclosing lock is told of at once, and the call fails before its work runs.
	 * Outside a transaction there is no write to fence: the call stays re-entrant.
	 * @return completes when the fences are held
	 */
	private Mono<Void> fence(ContextView context, LockRequest request, FencedKeys fenced) {
		return TransactionSynchronizationManager.forCurrentTransaction()
			.filter(TransactionSynchronizationManager::isActualTransactionActive)
			.onErrorResume(NoTransactionException.class, (ex) -> Mono.empty())
			.flatMap((transaction) -> {
				Acquisition acquisition = this.acquisitions.starting(request, fenced.keys(), context);
				acquisition.fenced();
				B bound;
				try {
					bound = this.binding.bind(transaction, request);
					// A suspended transaction of this subscriber that holds the fence (a
					// REQUIRES_NEW inside a fenced transaction) keeps it until after this
					// one ends.
					ReactiveTransactionLockSynchronization.checkNotSuspended(transaction, request, LockMode.EXCLUSIVE,
							fenced.keys(), bound.target(), bound.holder());
				}
				catch (RuntimeException ex) {
					acquisition.finished(Outcome.ERROR, ex);
					return Mono.error(ex);
				}
				return this.statements.fence(bound, request, fenced)
					.doOnError((ex) -> acquisition.finished(Outcome.ERROR, ex))
					.doOnCancel(() -> acquisition.finished(Outcome.ERROR, cancelled(request)))
					.flatMap((lostKey) -> Mono.<Void>error(fenced.lost(lostKey, request, acquisition)))
					.then(Mono.fromRunnable(() -> {
						acquisition.finished(Outcome.ACQUIRED, null);
						// The transaction holds the fences: recorded as its keys,
						// exclusive,
						// so that a suspension follows them.
						ReactiveTransactionLockSynchronization.record(transaction, LockMode.EXCLUSIVE,
								fenced.keys().keys(), bound.target(), bound.holder(), acquisition);
					}));
			});
	}

	private static LockTransactionException cancelled(LockRequest request) {
		return new LockTransactionException(
				"Advisory lock '" + request.namespace() + "' was cancelled by its subscriber");
	}

	/**
	 * Try the keys and, when one is found held, do what the wait mode decides (see
	 * {@link LockAttempt#afterBusy}): a {@code BLOCK} waits for it and those after it.
	 */
	private Mono<LockAttempt> attempt(B bound, LockRequest request, LockKeys keys) {
		return this.statements.tryLock(bound, request, keys)
			.flatMap((busyKey) -> LockAttempt.afterBusy(request.waitMode(), busyKey,
					() -> this.statements.waitLock(bound, request, keys, busyKey), Mono::just))
			.switchIfEmpty(Mono.just(LockAttempt.ACQUIRED));
	}

	/**
	 * Take one permit of a limit, as the blocking stack does: served from a slot the
	 * transaction holds already, else the first free one, else, as the wait mode decides,
	 * waited for in slices, busy or skipped.
	 */
	private Mono<KeyedAttempt> permit(TransactionSynchronizationManager transaction, B bound, LockRequest request,
			PermitSlots slots) {
		return Mono.defer(() -> {
			for (Long slot : slots.slots()) {
				if (ReactiveTransactionLockSynchronization.holds(transaction, slot, bound.target())) {
					// A nested call of the same limit takes no second permit.
					return Mono.just(slots.acquired(slot));
				}
			}
			return this.statements.tryPermit(bound, request, slots)
				.map(slots::acquired)
				.switchIfEmpty(Mono.defer(() -> LockAttempt.afterBusy(request.waitMode(), slots.slots().get(0),
						() -> waitPermit(bound, request, slots), (attempt) -> Mono.just(slots.notTaken(attempt)))));
		});
	}

	/**
	 * Wait for any permit of a limit, slice after slice, until the request's timeout.
	 */
	private Mono<KeyedAttempt> waitPermit(B bound, LockRequest request, PermitSlots slots) {
		return ReactivePermitWait.waitInSlices(
				slots, this.acquisitions.timeout(request), (resumed, slice, waited) -> this.statements
					.waitPermitSlice(bound, request, slots, resumed, slice, waited),
				() -> this.statements.endPermitWait(bound, request, slots));
	}

	/**
	 * Act on what an attempt found, after the listeners heard it.
	 */
	private Mono<Boolean> settle(LockAttempt attempt, Acquisition acquisition,
			TransactionSynchronizationManager transaction, B bound, LockRequest request, LockKeys keys,
			boolean throwIfBusy) {
		List<Long> taken = attempt.taken(keys.keys());
		if (!taken.isEmpty()) {
			ReactiveTransactionLockSynchronization.record(transaction, request.mode(), taken, bound.target(),
					bound.holder(), (attempt.outcome() == Outcome.ACQUIRED) ? acquisition : Acquisition.IGNORED);
		}
		if (attempt.outcome() == Outcome.SKIPPED) {
			this.acquisitions.logSkipped(request, keys);
		}
		if (attempt.fails(throwIfBusy)) {
			Duration timeout = (attempt.outcome() == Outcome.TIMEOUT) ? this.acquisitions.timeout(request) : null;
			return this.statements.busyError(bound, request, keys, attempt, timeout,
					LockFailures.limitHint(request, LockFailures.holderHint(attempt, bound.target())));
		}
		return Mono.just(attempt.outcome() == Outcome.ACQUIRED);
	}

}
