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

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.sql.LockSql.Opened;
import io.github.advisorylock.core.sql.PermitSql.OpenedLimit;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The lock sessions of the R2DBC stack, for {@link R2dbcInvocationLockExecutor}: each on
 * a connection of its own, straight from the driver (the application's pool unwrapped),
 * so that closing it when the publisher ends ends the server's session and its locks at
 * once.
 *
 * @author advisory-lock authors
 */
final class R2dbcLockSessions {

	private static final Log logger = LogFactory.getLog(R2dbcLockSessions.class);

	private final R2dbcConnectionFactories factories;

	private final R2dbcAcquisitionSupport support;

	R2dbcLockSessions(R2dbcConnectionFactories factories, R2dbcAcquisitionSupport support) {
		this.factories = factories;
		this.support = support;
	}

	/**
	 * Return the resource a request's session opens on: the one it names or the default
	 * one. It is also what a nested call finds the session's locks by.
	 * @param request the request, of invocation scope
	 * @return the resource
	 */
	ConnectionFactory resource(LockRequest request) {
		return this.factories.byName().get(this.factories.invocationName(request.namespace(), request.dataSource()));
	}

	/**
	 * Open a connection of the session's own, straight from the driver.
	 * @param factory the connection factory
	 * @param request the request
	 * @return the connection
	 */
	Mono<Connection> connect(ConnectionFactory factory, LockRequest request) {
		return Mono.<Connection>from(this.factories.driver(factory).create())
			.onErrorMap((ex) -> R2dbcExceptions.translate(
					"Open the connection of invocation-scoped advisory lock '" + request.namespace() + "'", null, ex));
	}

	/**
	 * Open the lock's transaction and try its keys, in one round trip, setting the
	 * session's dead-man switch.
	 * @param connection the session's connection
	 * @param request the request
	 * @param keys the keys to take, sorted
	 * @param applicationName the session's name for its transaction
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @return what the try found
	 */
	Mono<Opened> begin(Connection connection, LockRequest request, LockKeys keys, String applicationName,
			Duration deadMan) {
		return R2dbcLockSessionStatements
			.beginInvocation(connection, request.mode(), keys.keys(), request.namespace(), applicationName,
					deadMan.toMillis())
			.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, keys));
	}

	/**
	 * Open the lock's transaction and try the permits of a limit, in one round trip,
	 * setting the session's dead-man switch, as {@link #begin} does for keys.
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 * @param applicationName the session's name for its transaction
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @return what the try found
	 */
	Mono<OpenedLimit> beginLimit(Connection connection, LockRequest request, PermitSlots slots, String applicationName,
			Duration deadMan) {
		return R2dbcLockSessionStatements
			.beginLimit(connection, slots.slots(), request.namespace(), applicationName, deadMan.toMillis())
			.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, slots.all()));
	}

	/**
	 * Send one slice of a wait for any permit of a limit, cancelled on the server when
	 * its subscriber cancels (see {@link PermitSlots}).
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 * @param resumed whether a slice that ran out of time came before
	 * @param slice how long to wait for the chosen slot
	 * @param waited the index of the slot to wait for, from 1
	 * @return the slot taken; empty when the slice ran out of time
	 */
	Mono<Long> waitPermitSlice(Connection connection, LockRequest request, PermitSlots slots, boolean resumed,
			Duration slice, int waited) {
		return this.support.waitPermitSlice(connection, request, slots, resumed, slice, waited, false);
	}

	/**
	 * End a wait for a permit that ran out of time, leaving the session's transaction
	 * usable and holding no permit.
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 * @return completes when done
	 */
	Mono<Void> endPermitWait(Connection connection, LockRequest request, PermitSlots slots) {
		return R2dbcLockStatements.endPermitWait(connection)
			.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, slots.all()));
	}

	/**
	 * Signal why the try's check refused the lock, read on this failure path only.
	 * @param <T> the element type of the error
	 * @param connection the session's connection
	 * @param request the call, for the message
	 * @return the refusal, signalled
	 */
	<T> Mono<T> refusal(Connection connection, LockRequest request) {
		return R2dbcAcquisitionSupport.explainRefusal(connection, request);
	}

	/**
	 * Wait for the key the try found held and those after it, within the request's
	 * timeout; the wait is cancelled on the server when its subscriber cancels.
	 * @param connection the session's connection
	 * @param request the request
	 * @param keys the keys of the request
	 * @param busyKey the key found held
	 * @param timeout the request's timeout, or the template's default
	 * @return the attempt: acquired, or timed out with the driver's report
	 */
	Mono<LockAttempt> waitLock(Connection connection, LockRequest request, LockKeys keys, long busyKey,
			Duration timeout) {
		return this.support.waitFor(connection, request, keys, busyKey, timeout, false);
	}

	/**
	 * Signal the exception of a lock not acquired, naming its holders where the diagnosis
	 * is on.
	 * @param <T> the element type of the error
	 * @param factory the connection factory
	 * @param connection the session's connection, its transaction aborted after a timeout
	 * @param request the request
	 * @param keys its keys
	 * @param attempt what the attempt found: busy, or timed out
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @return the error
	 */
	<T> Mono<T> busyError(ConnectionFactory factory, Connection connection, LockRequest request, LockKeys keys,
			LockAttempt attempt, @Nullable Duration timeout) {
		String limitHint = LockFailures.limitHint(request, null);
		if (timeout == null) {
			return this.support.busyError(request, keys, null, null, () -> R2dbcHolderDiagnosis.onConnection(connection,
					attempt.foundHeld(request, keys), request.mode()), limitHint);
		}
		return this.support.busyError(
				request, keys, timeout, attempt.timedOut(), () -> R2dbcHolderDiagnosis
					.afterTimeout(this.factories.driver(factory), keys.waitedFor(attempt.foundHeld()), request.mode()),
				limitHint);
	}

	/**
	 * Make the session of keys just taken.
	 * @param factory what its locks are known by
	 * @param connection its connection
	 * @param request the request
	 * @param keys the keys taken
	 * @param acquisition the acquisition, told when the locks end
	 * @param acquiredNanos {@link System#nanoTime()} before the statement that took the
	 * locks was sent
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @param transactionTimeout the server's {@code transaction_timeout}, or {@code null}
	 * for none
	 * @return the session
	 */
	R2dbcLockSession session(ConnectionFactory factory, Connection connection, LockRequest request, LockKeys keys,
			Acquisition acquisition, long acquiredNanos, Duration deadMan, @Nullable Duration transactionTimeout) {
		return new R2dbcLockSession(request.namespace(), request.mode(), keys, factory, connection, acquisition,
				R2dbcLockSessionStatements.keepAliveSql(request.namespace(), deadMan.toMillis()), acquiredNanos,
				deadMan, transactionTimeout);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * PgBouncer forwards a cancel request only for a client still connected, and
	 * PostgreSQL, waiting for a lock, would not notice the closed connection until the
	 * wait ends: so the request goes first. On a session doing nothing it does nothing;
	 * the connection is the session's own, so it cannot reach another's work. Closing
	 * alone would end the server's session a moment later, and through PgBouncer later
	 * still: so the rollback goes before it. A request or a rollback not answered in
	 * {@link R2dbcWaitCancels#ANSWER_TIMEOUT} is given up on (a frozen link, which a lost
	 * session's often is): the close follows anyway. They run off the thread that asks
	 * for them ({@link R2dbcDriverConnections}).
	 */
	Mono<Void> close(Connection connection, boolean cancelled) {
		PostgresqlConnection postgres = cancelled ? R2dbcAcquisitionSupport.postgresConnection(connection) : null;
		Mono<Void> cancel = (postgres != null)
				? postgres.cancelRequest().timeout(R2dbcWaitCancels.ANSWER_TIMEOUT).onErrorResume((ex) -> Mono.empty())
				: Mono.empty();
		Mono<Void> rollback = cancel
			.then(R2dbcLockSessionStatements.rollback(connection).timeout(R2dbcWaitCancels.ANSWER_TIMEOUT))
			.onErrorResume((ex) -> {
				logger.debug("Rolling back the transaction of an invocation-scoped advisory lock failed", ex);
				return Mono.empty();
			});
		return R2dbcDriverConnections.offTheDelivery(rollback).then(closeReleased(connection));
	}

	/**
	 * Close the connection of a session whose release rolled its transaction back:
	 * nothing is left to roll back. A failure is logged, never signalled.
	 * @param connection the session's connection
	 * @return the end
	 */
	Mono<Void> closeReleased(Connection connection) {
		return R2dbcDriverConnections.close(connection).onErrorResume((ex) -> {
			logger.debug("Closing the connection of an invocation-scoped advisory lock failed", ex);
			return Mono.empty();
		});
	}

}
