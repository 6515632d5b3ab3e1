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

import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockSql.TryResult;
import io.github.advisorylock.r2dbc.LockConnectionFactories.BoundConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * Takes {@link LockScope#TRANSACTION transaction-scoped} locks on the connection of the
 * subscriber's reactive transaction, found in the Reactor context at subscription: one
 * statement when the keys are free, a second one for a {@link WaitMode#BLOCK} that found
 * a key held, and never a release (PostgreSQL releases them at COMMIT or ROLLBACK, and
 * Spring rolls a reactive transaction back when its subscriber cancels). The same checks,
 * statements, listener calls and failures as the JDBC path's
 * {@code TransactionScopeFlow}; nothing here blocks a thread.
 *
 * @author advisory-lock authors
 */
final class TransactionScopeFlow {

	private final LockConnectionFactories factories;

	private final AcquisitionSupport support;

	TransactionScopeFlow(LockConnectionFactories factories, AcquisitionSupport support) {
		this.factories = factories;
		this.support = support;
	}

	/**
	 * Acquire the locks in the subscriber's reactive transaction, and tell the listeners
	 * how it ended.
	 * @param request the request, of transaction scope
	 * @param keys its keys
	 * @param throwIfBusy whether a {@code TRY} that finds a lock held signals an error
	 * rather than {@code false}
	 * @return whether every lock is held; {@code false} for a {@code SKIP}, or a
	 * {@code TRY} that does not signal, that found one held
	 */
	Mono<Boolean> acquire(LockRequest request, LockKeys requested, boolean throwIfBusy) {
		// A wrong name is a mistake in the code, whatever the transaction: say it first.
		ConnectionFactory target = namedOrDefault(request);
		return Mono.deferContextual((context) -> {
			// Keys an enclosing invocation-scoped call of this subscriber holds are not
			// asked for again: its session would make this one wait for itself.
			LockKeys keys = InvocationScopeFlow.notHeld(context, request, requested, target);
			return keys.keys().isEmpty() ? Mono.just(true) : acquireInTransaction(context, request, keys, throwIfBusy);
		});
	}

	private Mono<Boolean> acquireInTransaction(ContextView context, LockRequest request, LockKeys keys,
			boolean throwIfBusy) {
		return TransactionSynchronizationManager.forCurrentTransaction()
			.onErrorMap(NoTransactionException.class,
					(ex) -> LockFailures.noReactiveTransactionRefusal(request.namespace()))
			.flatMap((transaction) -> {
				Acquisition acquisition = this.support.starting(request, keys, context);
				BoundConnection bound;
				try {
					bound = transactionBound(transaction, request);
					ReactiveTransactionLockSynchronization.checkNotSuspended(transaction, request, keys,
							bound.factory(), bound.connection());
				}
				catch (RuntimeException ex) {
					acquisition.finished(Outcome.ERROR, ex);
					return Mono.error(ex);
				}
				return attempt(bound.connection(), request, keys)
					.doOnError((ex) -> acquisition.finished(Outcome.ERROR, ex))

					.doOnCancel(() -> acquisition.finished(Outcome.ERROR,
							new LockTransactionException(
									"Advisory lock '" + request.namespace() + "' was cancelled by its subscriber")))
					.flatMap((attempt) -> {
						// The listeners hear the outcome before it becomes an error.
						acquisition.finished(attempt.outcome(), attempt.timedOut());
						return settle(attempt, acquisition, transaction, bound, request, keys, throwIfBusy);
					});
			});
	}

	/**
	 * Return whether the subscriber's reactive transaction took every key on the named
	 * connection factory, or the one it would lock on.
	 * @param request names the keys' connection factory, or not
	 * @param keys the keys
	 * @return whether it did; {@code false} without a reactive transaction
	 */
	Mono<Boolean> holds(LockRequest request, LockKeys keys) {
		ConnectionFactory factory = namedOrDefault(request);
		return Mono.deferContextual((context) -> TransactionSynchronizationManager.forCurrentTransaction()
			.map((transaction) -> keys.keys()
				.stream()
				.allMatch((key) -> InvocationScopeFlow.holds(context, key, factory)
						|| ReactiveTransactionLockSynchronization.holds(transaction, key, factory)))
			.onErrorResume(NoTransactionException.class, (ex) -> Mono
				.just(keys.keys().stream().allMatch((key) -> InvocationScopeFlow.holds(context, key, factory)))));
	}

	/**
	 * Return the connection factory a request names, or the default one, or {@code null}
	 * when it names none and there is no default.
	 */
	private @Nullable ConnectionFactory namedOrDefault(LockRequest request) {
		String name = (request.dataSource() != null) ? request.dataSource() : this.factories.defaultName();
		return (name != null) ? this.factories.named(request.namespace(), name) : null;
	}

	/**
	 * Find the connection of the subscriber's reactive transaction that a call joins,
	 * after checking the transaction.
	 */
	private BoundConnection transactionBound(TransactionSynchronizationManager transaction, LockRequest request) {
		String namespace = request.namespace();
		if (!transaction.isActualTransactionActive()) {
			throw LockFailures.noReactiveTransactionRefusal(namespace);
		}
		LockFailures.checkReadCommitted(namespace, transaction.getCurrentTransactionIsolationLevel());
		BoundConnection bound = this.factories.bound(transaction, namespace, request.dataSource());
		// A connection bound outside a transaction of its own: the lock would end with
		// its statement. The driver answers from the last status the server sent.
		if (bound.connection().isAutoCommit()) {
			throw LockFailures.autoCommitRefusal(namespace, "ConnectionFactory", "an R2dbcTransactionManager");
		}
		return bound;
	}

	/**
	 * Try the keys and, when one is found held, do what the wait mode decides (see
	 * {@link LockAttempt#afterBusy}): a {@code BLOCK} waits for it and those after it.
	 */
	private Mono<LockAttempt> attempt(Connection connection, LockRequest request, LockKeys keys) {
		return tryInTransaction(connection, request, keys).flatMap((tried) -> {
			Long busyKey = tried.busyKey();
			if (busyKey == null) {
				return Mono.just(LockAttempt.ACQUIRED);
			}
			return LockAttempt.afterBusy(request.waitMode(), busyKey,
					() -> this.support.waitFor(connection, request, keys, busyKey), Mono::just);
		});
	}

	/**
	 * Try every key in the transaction, after the check that a lock is allowed. A
	 * {@code SKIP} of several keys that finds one held gives back those taken before it:
	 * a savepoint around the try, rolled back then.
	 */
	private Mono<TryResult> tryInTransaction(Connection connection, LockRequest request, LockKeys keys) {
		Mono<TryResult> tried = R2dbcLockStatements.tryLock(connection, request.mode(), keys.keys(),
				request.namespace());
		if (request.waitMode() == WaitMode.SKIP && keys.keys().size() > 1) {
			String savepoint = "advisory_lock_skip";
			tried = Mono.from(connection.createSavepoint(savepoint))
				.then(tried)
				.flatMap((result) -> ((result.busyKey() != null)
						? Mono.from(connection.rollbackTransactionToSavepoint(savepoint)) : Mono.<Void>empty())
					.then(Mono.from(connection.releaseSavepoint(savepoint)))
					.thenReturn(result));
		}
		return tried.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, keys))
			.flatMap((result) -> {
				if (!result.lockable()) {
					return AcquisitionSupport.explainRefusal(connection, request.namespace());
				}
				return Mono.just(result);
			});
	}

	/**
	 * Act on what an attempt found, after the listeners heard it.
	 */
	private Mono<Boolean> settle(LockAttempt attempt, Acquisition acquisition,
			TransactionSynchronizationManager transaction, BoundConnection bound, LockRequest request, LockKeys keys,
			boolean throwIfBusy) {
		List<Long> taken = attempt.taken(keys.keys());
		if (!taken.isEmpty()) {
			ReactiveTransactionLockSynchronization.record(transaction, request.mode(), taken, bound.factory(),
					bound.connection(), (attempt.outcome() == Outcome.ACQUIRED) ? acquisition : Acquisition.IGNORED);
		}
		if (attempt.outcome() == Outcome.SKIPPED) {
			this.support.logSkipped(request, keys);
		}
		if (!attempt.fails(throwIfBusy)) {
			return Mono.just(attempt.outcome() == Outcome.ACQUIRED);
		}
		long busyKey = attempt.foundHeld();
		if (attempt.outcome() == Outcome.TIMEOUT) {
			return this.support.busyError(request, keys, this.support.timeout(request), attempt.timedOut(),
					() -> HolderDiagnosis.afterTimeout(this.factories.driver(bound.factory()), keys.waitedFor(busyKey),
							request.mode()));
		}
		return this.support.busyError(request, keys, null, null,
				() -> HolderDiagnosis.onConnection(bound.connection(), List.of(busyKey), request.mode()));
	}

}
