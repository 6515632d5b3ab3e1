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
 * The lock sessions of the R2DBC stack: each on a connection of its own, straight from
 * the driver (the application's pool unwrapped), so that closing it ends the server's
 * session and its locks at once.
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

	/** Return the factory a session opens on, which a nested call finds its locks by. */
	ConnectionFactory resource(LockRequest request) {
		return this.factories.byName().get(this.factories.invocationName(request.namespace(), request.dataSource()));
	}

	/** Open a connection of the session's own, straight from the driver. */
	Mono<Connection> connect(ConnectionFactory factory, LockRequest request) {
		return Mono.<Connection>from(this.factories.driver(factory).create())
			.onErrorMap((ex) -> R2dbcExceptions.translate(
					"Open the connection of invocation-scoped advisory lock '" + request.namespace() + "'", null, ex));
	}

	/** Open a session's transaction and try its keys, in one round trip. */
	Mono<Opened> begin(Connection connection, LockRequest request, LockKeys keys, String applicationName,
			Duration deadMan) {
		return R2dbcLockSessionStatements
			.beginInvocation(connection, request.mode(), keys.keys(), request.namespace(), applicationName,
					deadMan.toMillis())
			.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, keys));
	}

	/** Open a limit's session's transaction and try its permits, in one round trip. */
	Mono<OpenedLimit> beginLimit(Connection connection, LockRequest request, PermitSlots slots, String applicationName,
			Duration deadMan) {
		return R2dbcLockSessionStatements
			.beginLimit(connection, slots.slots(), request.namespace(), applicationName, deadMan.toMillis())
			.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, slots.all()));
	}

	/**
	 * Send one slice of a limit's wait ({@link PermitSlots}).
	 * @return the slot taken; empty when the slice ran out of time
	 */
	Mono<Long> waitPermitSlice(Connection connection, LockRequest request, PermitSlots slots, boolean resumed,
			Duration slice, int waited) {
		return this.support.waitPermitSlice(connection, request, slots, resumed, slice, waited, false);
	}

	/** End a permit wait that ran out of time, leaving the transaction usable. */
	Mono<Void> endPermitWait(Connection connection, LockRequest request, PermitSlots slots) {
		return R2dbcLockStatements.endPermitWait(connection)
			.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, slots.all()));
	}

	/** Signal why the try's check refused the lock. */
	<T> Mono<T> refusal(Connection connection, LockRequest request) {
		return R2dbcAcquisitionSupport.explainRefusal(connection, request);
	}

	/**
	 * Wait for the key the try found held and those after it.
	 * @return the attempt: acquired, or timed out with the driver's report
	 */
	Mono<LockAttempt> waitLock(Connection connection, LockRequest request, LockKeys keys, long busyKey,
			Duration timeout) {
		return this.support.waitFor(connection, request, keys, busyKey, timeout, false);
	}

	/**
	 * Signal the exception of a lock not acquired, naming its holders if the diagnosis is
	 * on (after a timeout, which aborted the transaction, on another connection).
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

	R2dbcLockSession session(ConnectionFactory factory, Connection connection, LockRequest request, LockKeys keys,
			Acquisition acquisition, long acquiredNanos, Duration deadMan, @Nullable Duration transactionTimeout) {
		return new R2dbcLockSession(request.namespace(), request.mode(), keys, factory, this.factories.driver(factory),
				connection, acquisition,
				R2dbcLockSessionStatements.keepAliveSql(request.namespace(), deadMan.toMillis()), acquiredNanos,
				deadMan, transactionTimeout);
	}

	/**
	 * Close a session's connection: a cancel request first, if cancelled, since PgBouncer
	 * forwards one only for a client still connected and a waiting backend would not see
	 * the close (on its own connection it reaches nobody else's work); then a rollback,
	 * which ends the locks sooner than the close would; each given up on after
	 * {@link R2dbcWaitCancels#ANSWER_TIMEOUT}, as a lost session's link is often frozen.
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

	/** Close the connection of a session its release rolled back; a failure is logged. */
	Mono<Void> closeReleased(Connection connection) {
		return R2dbcDriverConnections.close(connection).onErrorResume((ex) -> {
			logger.debug("Closing the connection of an invocation-scoped advisory lock failed", ex);
			return Mono.empty();
		});
	}

}
