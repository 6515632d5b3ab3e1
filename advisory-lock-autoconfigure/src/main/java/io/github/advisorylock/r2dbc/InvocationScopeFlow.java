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

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.ReactiveLockCallback;
import io.github.advisorylock.core.HeldLocks;
import io.github.advisorylock.core.HeldSession;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.ReactiveHeldLocks;
import io.github.advisorylock.core.TransactionTimeouts;
import io.github.advisorylock.r2dbc.LockSessionStatements.OpenedSession;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * Runs a publisher under {@link LockScope#INVOCATION invocation-scoped} locks over R2DBC,
 * each subscription in a lock session: a connection of its own, straight from the driver
 * (the application's pool unwrapped), on which a READ COMMITTED, READ ONLY transaction
 * with a dead-man {@code idle_in_transaction_session_timeout} of three heartbeats takes
 * the locks; a heartbeat keeps it alive while the publisher runs; and closing the
 * connection when the publisher completes, fails or is cancelled ends the session and its
 * locks at once. A cancel during the wait is cancelled on the server too.
 *
 * <p>
 * The sessions a subscriber holds are kept in its Reactor context, so that a nested call
 * for a key an enclosing one holds runs without asking again, and {@code checkHeld()}
 * finds them. At most {@code max-connections} sessions are open at once; one more is
 * refused at once, never queued.
 *
 * @author advisory-lock authors
 */
final class InvocationScopeFlow {

	private static final Log logger = LogFactory.getLog(InvocationScopeFlow.class);

	private final LockConnectionFactories factories;

	private final AcquisitionSupport support;

	private final TransactionTimeouts transactionTimeouts = new TransactionTimeouts(logger);

	private Duration heartbeat = Duration.ofSeconds(10);

	private int maxConnections = 4;

	private Semaphore permits = new Semaphore(this.maxConnections);

	private String instanceName = ManagementFactory.getRuntimeMXBean().getName();

	InvocationScopeFlow(LockConnectionFactories factories, AcquisitionSupport support) {
		this.factories = factories;
		this.support = support;
	}

	void setHeartbeat(Duration heartbeat) {
		this.heartbeat = heartbeat;
	}

	void setMaxConnections(int maxConnections) {
		this.maxConnections = maxConnections;
		this.permits = new Semaphore(maxConnections);
	}

	void setInstanceName(String instanceName) {
		this.instanceName = instanceName;
	}

	/**
	 * Run a publisher under the locks of a request.
	 * @param request the request, of invocation scope
	 * @param keys its keys
	 * @param callback makes the work
	 * @return the work's elements; none for a {@code SKIP} that found a key held
	 */
	<T> Flux<T> execute(LockRequest request, LockKeys keys, ReactiveLockCallback<T> callback) {
		return Flux.deferContextual((context) -> {
			List<HeldSession> enclosing = ReactiveHeldLocks.enclosing(context);
			ConnectionFactory factory = factory(request);
			LockKeys needed = HeldLocks.notHeld(enclosing, request.mode(), keys, () -> factory);
			if (needed.keys().isEmpty()) {
				// Re-entrant: an enclosing call of this subscriber holds every key, and
				// outlives this one.
				return Flux.from(callback.doWithLock(enclosing.get(enclosing.size() - 1)));
			}
			return TransactionSynchronizationManager.forCurrentTransaction()
				.map(TransactionSynchronizationManager::isActualTransactionActive)
				.onErrorResume(NoTransactionException.class, (ex) -> Mono.just(false))
				.flatMapMany((inTransaction) -> {
					// The listeners hear every refusal as an ERROR, as on JDBC.
					Acquisition acquisition = this.support.starting(request, needed, context);
					RuntimeException refusal = inTransaction
							? LockFailures.enclosingTransactionRefusal(request.namespace(), false)
							: (!this.permits.tryAcquire()) ? noConnection(request) : null;
					if (refusal != null) {
						acquisition.finished(Outcome.ERROR, refusal);
						return Flux.error(refusal);
					}
					return Flux
						.usingWhen(connect(factory, request, keys, acquisition),
								(connection) -> run(connection, factory, request, needed, acquisition, enclosing,
										callback),
								InvocationScopeFlow::close, (connection, ex) -> close(connection),
								InvocationScopeFlow::cancelThenClose)
						.doFinally((signal) -> this.permits.release());
				});
		});
	}

	/**
	 * Open the lock session's own connection; a failure ends the acquisition, in Spring's
	 * vocabulary.
	 */
	private Mono<Connection> connect(ConnectionFactory factory, LockRequest request, LockKeys keys,
			Acquisition acquisition) {
		return Mono.<Connection>from(this.factories.driver(factory).create())
			.onErrorMap((ex) -> R2dbcExceptions.translate(
					"Open the connection of invocation-scoped advisory lock '" + request.namespace() + "'", null, ex))
			.doOnError((ex) -> acquisition.finished(Outcome.ERROR, ex));
	}

	private <T> Flux<T> run(Connection connection, ConnectionFactory factory, LockRequest request, LockKeys keys,
			Acquisition acquisition, List<HeldSession> enclosing, ReactiveLockCallback<T> callback) {
		return acquire(connection, factory, request, keys, acquisition).flatMapMany((session) -> {
			RuntimeException closed = this.support.closedOr(request, null);
			if (closed != null) {
				// Granted as the template closed: the work must not start.
				session.release();
				return Flux.error(closed);
			}
			session.startHeartbeat(this.heartbeat);
			return Flux.usingWhen(Mono.just(session),
					(lock) -> Flux.defer(() -> callback.doWithLock(lock))
						.contextWrite((context) -> ReactiveHeldLocks.holding(context, enclosing, session)),
					InvocationScopeFlow::released, (lock, ex) -> released(lock), InvocationScopeFlow::released);
		});
	}

	private static Mono<Void> released(LockSession session) {
		return Mono.fromRunnable(session::release);
	}

	/**
	 * Open the lock's transaction and take its locks.
	 * @return the held lock; empty for a skip
	 */
	private Mono<LockSession> acquire(Connection connection, ConnectionFactory factory, LockRequest request,
			LockKeys keys, Acquisition acquisition) {
		Duration deadMan = this.heartbeat.multipliedBy(3);
		// The session's idle time counts from the last statement: its time is taken
		// before it is sent.
		long sent = System.nanoTime();
		AtomicBoolean told = new AtomicBoolean();
		return LockSessionStatements
			.beginInvocation(connection, request.mode(), keys.keys(), request.namespace(),
					applicationName(request.namespace()), deadMan.toMillis())
			.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, keys))
			.flatMap((opened) -> {
				if (!opened.tryResult().lockable()) {
					// It set READ COMMITTED itself, so only recovery is left.
					return AcquisitionSupport.explainRefusal(connection, request.namespace());
				}
				Long busyKey = opened.tryResult().busyKey();
				Mono<LockAttempt> attempt = (busyKey != null)
						? LockAttempt.afterBusy(request.waitMode(), busyKey,
								() -> this.support.waitFor(connection, request, keys, busyKey), Mono::just)
						: Mono.just(LockAttempt.ACQUIRED);
				return attempt.map((tried) -> new Attempted(opened, tried));
			})
			// A wait the template's close cancelled fails as the shutdown.
			.onErrorMap(RuntimeException.class, (ex) -> this.support.closedOr(request, ex))
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
			.flatMap((attempted) -> {
				LockAttempt attempt = attempted.attempt();
				told.set(true);
				acquisition.finished(attempt.outcome(), attempt.timedOut());
				return switch (attempt.outcome()) {
					case SKIPPED -> {
						this.support.logSkipped(request, keys);
						yield Mono.empty();
					}
					case BUSY -> this.support.busyError(request, keys, null, null,
							() -> HolderDiagnosis.onConnection(connection, List.of(attempt.busyKey()), request.mode()));
					case TIMEOUT -> this.support.busyError(request, keys, this.support.timeout(request),
							attempt.timedOut(), () -> HolderDiagnosis.afterTimeout(this.factories.driver(factory),
									keys.waitedFor(attempt.busyKey()), request.mode()));
					default -> Mono.just(new LockSession(request.namespace(), request.mode(), keys, factory, connection,
							acquisition, LockSessionStatements.keepAliveSql(request.namespace(), deadMan.toMillis()),
							sent, deadMan, this.transactionTimeouts.read(request.namespace(),
									attempted.opened().transactionTimeout())));
				};
			});
	}

	private ConnectionFactory factory(LockRequest request) {
		return this.factories.byName().get(this.factories.invocationName(request.namespace(), request.dataSource()));
	}

	private RuntimeException noConnection(LockRequest request) {
		return new DataAccessResourceFailureException("Invocation-scoped advisory lock '" + request.namespace()
				+ "' needs a connection of its own, and all " + this.maxConnections + " are holding other locks: "
				+ "raise advisory-lock.invocation.max-connections, or run fewer invocation-scoped calls at once");
	}

	private String applicationName(String namespace) {
		// PostgreSQL keeps 63 bytes.
		return "advisory-lock " + namespace + " @ " + this.instanceName;
	}

	/**
	 * End a session whose subscriber cancelled: a wait it may be in is cancelled on the
	 * server first (the rollback would queue behind it), since PgBouncer forwards a
	 * cancel request only for a client still connected, and PostgreSQL, waiting for a
	 * lock, would not notice the closed connection until the wait ends. On a session
	 * doing nothing the request does nothing; the connection is the session's own, so it
	 * cannot reach another's work.
	 */
	private static Mono<Void> cancelThenClose(Connection connection) {
		PostgresqlConnection postgres = AcquisitionSupport.postgresConnection(connection);
		Mono<Void> cancel = (postgres != null) ? postgres.cancelRequest().onErrorResume((ex) -> Mono.empty())
				: Mono.empty();
		return cancel.then(close(connection));
	}

	/**
	 * End a session: roll its transaction back, which releases the locks before the
	 * subscriber hears the end (closing alone ends the server's session a moment later,
	 * and through PgBouncer later still), then close the connection. A failed rollback is
	 * logged, not signalled: closing releases the locks all the same.
	 */
	private static Mono<Void> close(Connection connection) {
		return R2dbcLockStatements.drain(connection.createStatement("ROLLBACK")).onErrorResume((ex) -> {
			logger.debug("Rolling back the transaction of an invocation-scoped advisory lock failed", ex);
			return Mono.empty();
		}).then(Mono.from(connection.close())).onErrorResume((ex) -> {
			logger.debug("Closing the connection of an invocation-scoped advisory lock failed", ex);
			return Mono.empty();
		});
	}

	/**
	 * What the opening statements found, and what the wait mode made of it.
	 */
	private record Attempted(OpenedSession opened, LockAttempt attempt) {

	}

}
