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

package io.github.advisorylock.r2dbc;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.ReactiveLockCallback;
import io.github.advisorylock.core.ContendedKeys;
import io.github.advisorylock.core.KeyedAttempt;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockLifecycle;
import io.github.advisorylock.core.LockSettings;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.ReactivePermitWait;
import io.github.advisorylock.core.plan.FencedKeys;
import io.github.advisorylock.core.plan.TransactionLockPlan;
import io.github.advisorylock.core.session.HeldLocks;
import io.github.advisorylock.core.session.HeldSession;
import io.github.advisorylock.core.session.ReactiveHeldLocks;
import io.github.advisorylock.core.transaction.ReactiveTransactionLockSynchronization;
import io.github.advisorylock.r2dbc.R2dbcConnectionFactories.BoundConnection;
import io.r2dbc.spi.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * Runs a {@link LockScope#TRANSACTION transaction-scoped} lock request on R2DBC, as
 * {@code JdbcTransactionLockExecutor} does on JDBC, at subscription: the transaction and
 * the enclosing invocation-scoped calls are the subscriber's, from its Reactor context.
 * The keys taken are recorded in {@link ReactiveTransactionLockSynchronization} until
 * COMMIT or ROLLBACK (Spring rolls back when the subscriber cancels).
 *
 * @author advisory-lock authors
 */
final class R2dbcTransactionLockExecutor {

	private final R2dbcConnectionFactories factories;

	private final R2dbcAcquisitionSupport support;

	private final LockLifecycle lifecycle;

	private final R2dbcTransactionLockStatements statements;

	private final ContendedKeys contended = new ContendedKeys();

	private final @Nullable ConnectionFactory defaultFactory;

	R2dbcTransactionLockExecutor(R2dbcConnectionFactories factories, R2dbcAcquisitionSupport support,
			LockLifecycle lifecycle) {
		this.factories = factories;
		this.defaultFactory = factories.defaultResource();
		this.support = support;
		this.lifecycle = lifecycle;
		this.statements = new R2dbcTransactionLockStatements(factories, support);
	}

	/**
	 * Run a publisher under the locks of a request, in the subscriber's transaction.
	 * @return the work's elements; none for a {@code SKIP} that found a key held
	 */
	<T> Flux<T> execute(LockRequest request, LockKeys keys, LockSettings settings, ReactiveLockCallback<T> callback) {
		return acquire(request, keys, settings, true)
			.flatMapMany((held) -> held ? Flux.from(callback.doWithLock(HeldLocks.transactionHandle())) : Flux.empty());
	}

	/**
	 * Acquire the locks in the subscriber's transaction, and tell the listeners.
	 * @param throwIfBusy whether a {@code TRY} that finds a lock held signals an error
	 * rather than {@code false}
	 * @return whether every lock is held
	 */
	Mono<Boolean> acquire(LockRequest request, LockKeys requested, LockSettings settings, boolean throwIfBusy) {
		// A wrong name is a mistake in the code, whatever the transaction: say it first.
		@Nullable ConnectionFactory target = heldLocksTarget(request);
		return Mono.deferContextual((context) -> {
			this.lifecycle.checkOpen(request);
			return currentTransaction().flatMap((found) -> {
				TransactionSynchronizationManager transaction = found.orElse(null);
				TransactionLockPlan plan = TransactionLockPlan.of(request, requested,
						ReactiveHeldLocks.enclosing(context), target,
						transaction != null && transaction.isActualTransactionActive());
				Mono<Boolean> acquired;
				if (plan.keys().keys().isEmpty()) {
					// The enclosing calls hold every key.
					acquired = Mono.just(true);
				}
				else if (transaction == null) {
					acquired = Mono.error(LockFailures.noReactiveTransactionRefusal(request));
				}
				else {
					acquired = Mono.defer(() -> take(context, transaction, request, plan, settings, throwIfBusy));
				}
				FencedKeys fence = plan.fence();
				// A fence is planned inside an actual transaction only.
				return (fence != null)
						? Mono.defer(() -> fence(context, transaction, request, fence, settings)).then(acquired)
						: acquired;
			});
		});
	}

	/**
	 * Return whether the subscriber's transaction, or an enclosing invocation-scoped
	 * call, took every key on the connection factory the request would lock on.
	 */
	Mono<Boolean> holds(LockRequest request, LockKeys keys) {
		@Nullable Object target = heldLocksTarget(request);
		return Mono
			.deferContextual((context) -> currentTransaction().map((transaction) -> keys.keys()
				.stream()
				.allMatch((key) -> ReactiveHeldLocks.holds(context, key, target) || transaction
					.map((current) -> ReactiveTransactionLockSynchronization.holds(current, key, target))
					.orElse(false))));
	}

	/** Take the plan's keys, or a permit of its limit, telling the listeners. */
	private Mono<Boolean> take(ContextView context, TransactionSynchronizationManager transaction, LockRequest request,
			TransactionLockPlan plan, LockSettings settings, boolean throwIfBusy) {
		Acquisition acquisition = R2dbcAcquisitionSupport.starting(settings.listeners(), request, plan.keys(),
				plan.slots(), context);
		BoundConnection bound;
		try {
			bound = bind(transaction, request, request.mode(), plan.keys());
		}
		catch (RuntimeException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			return Mono.error(ex);
		}
		PermitSlots slots = plan.slots();
		Mono<KeyedAttempt> attempted = (slots != null) ? permit(transaction, bound, request, slots, settings)
				: attempt(bound, request, plan.keys(), settings)
					.map((attempt) -> new KeyedAttempt(attempt, plan.keys()));
		return attempted
			// A wait the template's close cancelled fails as the shutdown.
			.onErrorMap(RuntimeException.class, (ex) -> this.lifecycle.closedOr(request, ex))
			.flatMap((keyed) -> {
				// Granted as the template closed: the work must not start.
				RuntimeException closed = this.lifecycle.closedOr(request, null);
				return (closed != null) ? Mono.<KeyedAttempt>error(closed) : Mono.just(keyed);
			})
			.doOnError((ex) -> acquisition.finished(Outcome.ERROR, ex))
			.doOnCancel(() -> acquisition.finished(Outcome.ERROR, cancelled(request)))
			.flatMap((keyed) -> {
				// The listeners hear the outcome before it becomes an error.
				keyed.tell(acquisition);
				return settle(keyed.attempt(), acquisition, transaction, bound, request, keyed.keys(), settings,
						throwIfBusy);
			});
	}

	/**
	 * Make the transaction a fenced write, as {@code JdbcTransactionLockExecutor} does.
	 * @return completes when the fences are held
	 */
	private Mono<Void> fence(ContextView context, TransactionSynchronizationManager transaction, LockRequest request,
			FencedKeys fenced, LockSettings settings) {
		Acquisition acquisition = R2dbcAcquisitionSupport.starting(settings.listeners(), request, fenced.keys(), null,
				context);
		acquisition.fenced();
		BoundConnection bound;
		try {
			// Refused if a suspended transaction holds the fence, as on JDBC.
			bound = bind(transaction, request, LockMode.EXCLUSIVE, fenced.keys());
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
				// Recorded as the transaction's keys, so that a suspension follows them.
				ReactiveTransactionLockSynchronization.record(transaction, LockMode.EXCLUSIVE, fenced.keys().keys(),
						bound.factory(), bound.connection(), acquisition);
			}));
	}

	/**
	 * Try the keys; when one is held, do what {@link LockAttempt#afterBusy} decides. A
	 * key found held recently is waited for at once ({@link ContendedKeys}).
	 */
	private Mono<LockAttempt> attempt(BoundConnection bound, LockRequest request, LockKeys keys,
			LockSettings settings) {
		// Called at subscription (from take), so the decision is the subscriber's.
		if (this.contended.waitsFirst(request, keys)) {
			return this.statements.waitOne(bound, request, keys, settings.timeout(request));
		}
		return this.statements.tryLock(bound, request, keys).flatMap((busyKey) -> {
			this.contended.foundHeld(busyKey);
			return LockAttempt.afterBusy(request.waitMode(), busyKey,
					() -> this.statements.waitLock(bound, request, keys, busyKey, settings.timeout(request)),
					Mono::just);
		}).switchIfEmpty(Mono.just(LockAttempt.ACQUIRED));
	}

	/**
	 * Take one permit of a limit: a slot the transaction holds, else the first free one,
	 * else as the wait mode decides ({@link PermitSlots}).
	 */
	private Mono<KeyedAttempt> permit(TransactionSynchronizationManager transaction, BoundConnection bound,
			LockRequest request, PermitSlots slots, LockSettings settings) {
		return Mono.defer(() -> {
			for (Long slot : slots.slots()) {
				if (ReactiveTransactionLockSynchronization.holds(transaction, slot, bound.factory())) {
					// A nested call of the same limit takes no second permit.
					return Mono.just(slots.acquired(slot));
				}
			}
			return this.statements.tryPermit(bound, request, slots)
				.map(slots::acquired)
				.switchIfEmpty(Mono.defer(() -> LockAttempt.afterBusy(request.waitMode(), slots.slots().get(0),
						() -> ReactivePermitWait.waitInSlices(slots, settings.timeout(request),
								(resumed, slice, waited) -> this.statements.waitPermitSlice(bound, request, slots,
										resumed, slice, waited),
								() -> this.statements.endPermitWait(bound, request, slots)),
						(attempt) -> Mono.just(slots.notTaken(attempt)))));
		});
	}

	/** Record what an attempt took, and fail as its outcome says. */
	private Mono<Boolean> settle(LockAttempt attempt, Acquisition acquisition,
			TransactionSynchronizationManager transaction, BoundConnection bound, LockRequest request, LockKeys keys,
			LockSettings settings, boolean throwIfBusy) {
		List<Long> taken = attempt.taken(keys.keys());
		if (!taken.isEmpty()) {
			ReactiveTransactionLockSynchronization.record(transaction, request.mode(), taken, bound.factory(),
					bound.connection(), (attempt.outcome() == Outcome.ACQUIRED) ? acquisition : Acquisition.IGNORED);
		}
		if (attempt.outcome() == Outcome.SKIPPED) {
			this.support.logSkipped(request, keys);
		}
		if (attempt.fails(throwIfBusy)) {
			Duration timeout = (attempt.outcome() == Outcome.TIMEOUT) ? settings.timeout(request) : null;
			return this.statements.busyError(bound, request, keys, attempt, timeout,
					LockFailures.limitHint(request, HeldSession.holderHint(attempt.foundHeld(), bound.factory())));
		}
		return Mono.just(attempt.outcome() == Outcome.ACQUIRED);
	}

	/**
	 * Return the connection factory a call locks on, as the enclosing invocation-scoped
	 * locks are known by: the one it names, or the default.
	 * @throws IllegalArgumentException if the request names an unknown one
	 */
	private @Nullable ConnectionFactory heldLocksTarget(LockRequest request) {
		return (request.dataSource() != null) ? this.factories.named(request.namespace(), request.dataSource())
				: this.defaultFactory;
	}

	/**
	 * Join the subscriber's transaction's connection, checked as
	 * {@code JdbcTransactionLockExecutor} checks the thread's.
	 * @throws LockTransactionException if a lock there would protect nothing
	 */
	private BoundConnection bind(TransactionSynchronizationManager transaction, LockRequest request, LockMode mode,
			LockKeys keys) {
		if (!transaction.isActualTransactionActive()) {
			throw LockFailures.noReactiveTransactionRefusal(request);
		}
		TransactionLockPlan.checkReadCommitted(request, transaction.getCurrentTransactionIsolationLevel());
		BoundConnection bound = this.factories.bound(transaction, request);
		// In auto-commit the lock would end with its statement; the driver knows, no I/O.
		if (bound.connection().isAutoCommit()) {
			throw LockFailures.autoCommitRefusal(request, "ConnectionFactory", "an R2dbcTransactionManager");
		}
		ReactiveTransactionLockSynchronization.checkNotSuspended(transaction, request, mode, keys, bound.factory(),
				bound.connection());
		return bound;
	}

	private static Mono<Optional<TransactionSynchronizationManager>> currentTransaction() {
		return TransactionSynchronizationManager.forCurrentTransaction()
			.map(Optional::of)
			.onErrorResume(NoTransactionException.class, (ex) -> Mono.just(Optional.empty()));
	}

	private static LockTransactionException cancelled(LockRequest request) {
		return new LockTransactionException(
				"Advisory lock '" + request.namespace() + "' was cancelled by its subscriber");
	}

}
