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

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.ReactiveLockCallback;
import io.github.advisorylock.core.KeyedAttempt;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockLifecycle;
import io.github.advisorylock.core.LockSettings;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.ReactivePermitWait;
import io.github.advisorylock.core.plan.InvocationLockPlan;
import io.github.advisorylock.core.session.HeldSession;
import io.github.advisorylock.core.session.ReactiveHeldLocks;
import io.github.advisorylock.core.transaction.TransactionTimeouts;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * Runs an {@link LockScope#INVOCATION invocation-scoped} lock request on R2DBC, as
 * {@code JdbcInvocationLockExecutor} does on JDBC: each subscription holds its locks in a
 * session on a connection of its own ({@link R2dbcLockSessions}), ended when the
 * publisher completes, fails or is cancelled; the enclosing calls are the subscriber's
 * ({@link ReactiveHeldLocks}). A session beyond {@code max-connections} is refused, never
 * queued.
 *
 * @author advisory-lock authors
 */
final class R2dbcInvocationLockExecutor {

	private final R2dbcAcquisitionSupport support;

	private final LockLifecycle lifecycle;

	private final R2dbcLockSessions sessions;

	private final TransactionTimeouts transactionTimeouts = new TransactionTimeouts(
			LogFactory.getLog(R2dbcInvocationLockExecutor.class));

	private Duration heartbeat = Duration.ofSeconds(10);

	private int maxConnections = 4;

	private Semaphore permits = new Semaphore(this.maxConnections);

	private String instanceName = ManagementFactory.getRuntimeMXBean().getName();

	R2dbcInvocationLockExecutor(R2dbcAcquisitionSupport support, LockLifecycle lifecycle, R2dbcLockSessions sessions) {
		this.support = support;
		this.lifecycle = lifecycle;
		this.sessions = sessions;
	}

	/** Set the heartbeat; three of them make the dead-man switch. */
	void setHeartbeat(Duration heartbeat) {
		this.heartbeat = LockSettings.checkHeartbeat(heartbeat);
	}

	void setMaxConnections(int maxConnections) {
		this.maxConnections = LockSettings.checkMaxConnections(maxConnections);
		this.permits = new Semaphore(maxConnections);
	}

	void setInstanceName(String instanceName) {
		this.instanceName = instanceName;
	}

	/**
	 * Run a publisher under the locks of a request.
	 * @return the work's elements; none for a {@code SKIP} that found a key held
	 */
	<T> Flux<T> execute(LockRequest request, LockKeys keys, LockSettings settings, ReactiveLockCallback<T> callback) {
		return Flux.deferContextual((context) -> {
			List<HeldSession> enclosing = ReactiveHeldLocks.enclosing(context);
			ConnectionFactory resource = this.sessions.resource(request);
			InvocationLockPlan plan = InvocationLockPlan.of(request, keys, enclosing, resource);
			LockKeys needed = plan.keys();
			PermitSlots slots = plan.slots();
			if (needed.keys().isEmpty()) {
				// An enclosing call of this subscriber holds every key, and outlives it.
				return Flux.from(callback.doWithLock(enclosing.get(enclosing.size() - 1)));
			}
			return TransactionSynchronizationManager.forCurrentTransaction()
				.map(TransactionSynchronizationManager::isActualTransactionActive)
				.onErrorResume(NoTransactionException.class, (ex) -> Mono.just(false))
				.flatMapMany((inTransaction) -> {
					Acquisition acquisition = R2dbcAcquisitionSupport.starting(settings.listeners(), request, needed,
							slots, context);
					RuntimeException refusal = inTransaction ? LockFailures.enclosingTransactionRefusal(request, false)
							: (!this.permits.tryAcquire()) ? noConnection(request) : null;
					if (refusal != null) {
						acquisition.finished(Outcome.ERROR, refusal);
						return Flux.error(refusal);
					}
					Mono<Connection> connection = this.sessions.connect(resource, request)
						.doOnError((ex) -> acquisition.finished(Outcome.ERROR, ex));
					// Set once a held session's release has rolled its transaction back.
					AtomicBoolean released = new AtomicBoolean();
					return Flux
						.usingWhen(connection,
								(opened) -> run(resource, opened, request, needed, slots, acquisition,
										settings.timeout(request), enclosing, released, callback),
								(opened) -> close(opened, released), (opened, ex) -> close(opened, released),
								(opened) -> this.sessions.close(opened, true))
						.doFinally((signal) -> this.permits.release());
				});
		});
	}

	/**
	 * Take the locks, run the work, and release them when it completes or fails, before
	 * the subscriber hears the end: a loss while it ran, or found by the release, is then
	 * the call's error, or kept with the work's own as suppressed.
	 */
	private <T> Flux<T> run(ConnectionFactory resource, Connection connection, LockRequest request, LockKeys keys,
			@Nullable PermitSlots slots, Acquisition acquisition, Duration timeout, List<HeldSession> enclosing,
			AtomicBoolean released, ReactiveLockCallback<T> callback) {
		return acquire(resource, connection, request, keys, slots, acquisition, timeout).flatMapMany((session) -> {
			// Rolls back a lost session too: the loss may be this side's only (a
			// dead-man switch run out while the server kept the session).
			Mono<Void> release = session.release().doOnSuccess((done) -> released.set(session.isReleased()));
			RuntimeException closed = this.lifecycle.closedOr(request, null);
			if (closed != null) {
				// Granted as the template closed: the work must not start.
				return release.thenMany(Flux.error(closed));
			}
			session.startHeartbeat(this.heartbeat);
			return Flux.usingWhen(Mono.just(session),
					(lock) -> Flux.defer(() -> callback.doWithLock(lock))
						.contextWrite((context) -> ReactiveHeldLocks.holding(context, enclosing, session)),
					(lock) -> release, (lock, ex) -> release.then(Mono.fromRunnable(() -> lock.addLossTo(ex))),
					(lock) -> {
						lock.cancelled();
						return Mono.empty();
					})
				// Not in the release: Reactor wraps what a cleanup signals.
				.concatWith(Mono.fromRunnable(session::checkHeld));
		});
	}

	/** Close a session's connection, rolling back first unless its release did. */
	private Mono<Void> close(Connection connection, AtomicBoolean released) {
		return released.get() ? this.sessions.closeReleased(connection) : this.sessions.close(connection, false);
	}

	/**
	 * Take the session's locks, or one permit of its limit, and tell the listeners.
	 * @return the held session; empty for a skip
	 */
	private Mono<R2dbcLockSession> acquire(ConnectionFactory resource, Connection connection, LockRequest request,
			LockKeys keys, @Nullable PermitSlots slots, Acquisition acquisition, Duration timeout) {
		Duration deadMan = this.heartbeat.multipliedBy(3);
		// The idle time counts from the last statement: timed before it is sent.
		long sent = System.nanoTime();
		AtomicBoolean told = new AtomicBoolean();
		String applicationName = "advisory-lock " + request.namespace() + " @ " + this.instanceName;
		Mono<Attempted> attempted = (slots != null)
				? attemptPermit(connection, request, slots, applicationName, deadMan, timeout)
				: attempt(connection, request, keys, applicationName, deadMan, timeout);
		return attempted
			// A wait the template's close cancelled fails as the shutdown.
			.onErrorMap(RuntimeException.class, (ex) -> this.lifecycle.closedOr(request, ex))
			.doOnError((ex) -> {
				if (told.compareAndSet(false, true)) {
					acquisition.finished(Outcome.ERROR, ex);
				}
			})
			.doOnCancel(() -> {
				if (told.compareAndSet(false, true)) {
					acquisition.finished(Outcome.ERROR, new LockTransactionException(
							"Advisory lock '" + request.namespace() + "' was cancelled by its subscriber"));
				}
			})
			.flatMap((done) -> {
				KeyedAttempt keyed = done.keyed();
				LockAttempt attempt = keyed.attempt();
				told.set(true);
				keyed.tell(acquisition);
				if (attempt.outcome() == Outcome.SKIPPED) {
					this.support.logSkipped(request, keys);
					return Mono.empty();
				}
				if (attempt.fails(true)) {
					return this.sessions.busyError(resource, connection, request, keyed.keys(), attempt,
							(attempt.outcome() == Outcome.TIMEOUT) ? timeout : null);
				}
				return Mono.just(this.sessions.session(resource, connection, request, keyed.keys(), acquisition, sent,
						deadMan, this.transactionTimeouts.read(request.namespace(), done.transactionTimeout())));
			});
	}

	/** Open the session's transaction with the try of its keys, then wait as asked. */
	private Mono<Attempted> attempt(Connection connection, LockRequest request, LockKeys keys, String applicationName,
			Duration deadMan, Duration timeout) {
		return this.sessions.begin(connection, request, keys, applicationName, deadMan)
			.flatMap((opened) -> afterOpening(connection, request, opened.tryResult().lockable(),
					opened.transactionTimeout(), () -> {
						Long busyKey = opened.tryResult().busyKey();
						Mono<LockAttempt> attempt = (busyKey != null) ? LockAttempt.afterBusy(request.waitMode(),
								busyKey, () -> this.sessions.waitLock(connection, request, keys, busyKey, timeout),
								Mono::just) : Mono.just(LockAttempt.ACQUIRED);
						return attempt.map((tried) -> new KeyedAttempt(tried, keys));
					}));
	}

	/** Open the session's transaction with the try of its permits, then wait as asked. */
	private Mono<Attempted> attemptPermit(Connection connection, LockRequest request, PermitSlots slots,
			String applicationName, Duration deadMan, Duration timeout) {
		return this.sessions.beginLimit(connection, request, slots, applicationName, deadMan)
			.flatMap((opened) -> afterOpening(connection, request, opened.tried().lockable(),
					opened.transactionTimeout(), () -> {
						Long taken = opened.tried().slot();
						if (taken != null) {
							return Mono.just(slots.acquired(taken));
						}
						return LockAttempt.afterBusy(request.waitMode(), slots.slots().get(0),
								() -> ReactivePermitWait.waitInSlices(slots, timeout,
										(resumed, slice, waited) -> this.sessions.waitPermitSlice(connection, request,
												slots, resumed, slice, waited),
										() -> this.sessions.endPermitWait(connection, request, slots)),
								(attempt) -> Mono.just(slots.notTaken(attempt)));
					}));
	}

	/**
	 * Refuse what the opening's check refused (recovery, as it sets READ COMMITTED), else
	 * go on with the attempt.
	 */
	private Mono<Attempted> afterOpening(Connection connection, LockRequest request, boolean lockable,
			@Nullable String transactionTimeout, Supplier<Mono<KeyedAttempt>> attempt) {
		if (!lockable) {
			return this.sessions.refusal(connection, request);
		}
		return attempt.get().map((keyed) -> new Attempted(keyed, transactionTimeout));
	}

	private RuntimeException noConnection(LockRequest request) {
		return new DataAccessResourceFailureException(
				LockFailures.noSessionConnectionLeft(request.namespace(), this.maxConnections));
	}

	/** What the wait mode made of what the opening statements found. */
	private record Attempted(KeyedAttempt keyed, @Nullable String transactionTimeout) {

	}

}
