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
import io.github.advisorylock.core.LockSessions.Opened;
import io.github.advisorylock.core.LockSessions.OpenedLimit;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.ReactiveInvocationLockFlow;
import io.github.advisorylock.core.ReactiveLockSessions;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The lock sessions of the R2DBC stack, for {@link ReactiveInvocationLockFlow}: each on a
 * connection of its own, straight from the driver (the application's pool unwrapped), so
 * that closing it when the publisher ends ends the server's session and its locks at
 * once.
 *
 * @author advisory-lock authors
 */
final class R2dbcLockSessions implements ReactiveLockSessions<ConnectionFactory, Connection, LockSession> {

	private static final Log logger = LogFactory.getLog(R2dbcLockSessions.class);

	private final LockConnectionFactories factories;

	private final AcquisitionSupport support;

	R2dbcLockSessions(LockConnectionFactories factories, AcquisitionSupport support) {
		this.factories = factories;
		this.support = support;
	}

	@Override
	public ConnectionFactory resource(LockRequest request) {
		return this.factories.byName().get(this.factories.invocationName(request.namespace(), request.dataSource()));
	}

	@Override
	public Mono<Connection> connect(ConnectionFactory factory, LockRequest request) {
		return Mono.<Connection>from(this.factories.driver(factory).create())
			.onErrorMap((ex) -> R2dbcExceptions.translate(
					"Open the connection of invocation-scoped advisory lock '" + request.namespace() + "'", null, ex));
	}

	@Override
	public Mono<Opened> begin(Connection connection, LockRequest request, LockKeys keys, String applicationName,
			Duration deadMan) {
		return LockSessionStatements
			.beginInvocation(connection, request.mode(), keys.keys(), request.namespace(), applicationName,
					deadMan.toMillis())
			.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, keys));
	}

	@Override
	public Mono<OpenedLimit> beginLimit(Connection connection, LockRequest request, PermitSlots slots,
			String applicationName, Duration deadMan) {
		return LockSessionStatements
			.beginLimit(connection, slots.slots(), request.namespace(), applicationName, deadMan.toMillis())
			.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, slots.all()));
	}

	@Override
	public Mono<Long> waitPermitSlice(Connection connection, LockRequest request, PermitSlots slots, boolean resumed,
			Duration slice, int waited) {
		return this.support.waitPermitSlice(connection, request, slots, resumed, slice, waited, false);
	}

	@Override
	public Mono<Void> endPermitWait(Connection connection, LockRequest request, PermitSlots slots) {
		return R2dbcLockStatements.endPermitWait(connection)
			.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, slots.all()));
	}

	@Override
	public <T> Mono<T> refusal(Connection connection, LockRequest request) {
		return AcquisitionSupport.explainRefusal(connection, request);
	}

	@Override
	public Mono<LockAttempt> waitLock(Connection connection, LockRequest request, LockKeys keys, long busyKey) {
		return this.support.waitFor(connection, request, keys, busyKey, false);
	}

	@Override
	public <T> Mono<T> busyError(ConnectionFactory factory, Connection connection, LockRequest request, LockKeys keys,
			LockAttempt attempt, @Nullable Duration timeout) {
		String limitHint = LockFailures.limitHint(request, null);
		if (timeout == null) {
			return this.support.busyError(request, keys, null, null,
					() -> HolderDiagnosis.onConnection(connection, attempt.foundHeld(request, keys), request.mode()),
					limitHint);
		}
		return this.support.busyError(
				request, keys, timeout, attempt.timedOut(), () -> HolderDiagnosis
					.afterTimeout(this.factories.driver(factory), keys.waitedFor(attempt.foundHeld()), request.mode()),
				limitHint);
	}

	@Override
	public LockSession session(ConnectionFactory factory, Connection connection, LockRequest request, LockKeys keys,
			Acquisition acquisition, long acquiredNanos, Duration deadMan, @Nullable Duration transactionTimeout) {
		return new LockSession(request.namespace(), request.mode(), keys, factory, connection, acquisition,
				LockSessionStatements.keepAliveSql(request.namespace(), deadMan.toMillis()), acquiredNanos, deadMan,
				transactionTimeout);
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
	 * {@link WaitCancels#ANSWER_TIMEOUT} is given up on (a frozen link, which a lost
	 * session's often is): the close follows anyway.
	 */
	@Override
	public Mono<Void> close(Connection connection, boolean cancelled) {
		PostgresqlConnection postgres = cancelled ? AcquisitionSupport.postgresConnection(connection) : null;
		Mono<Void> cancel = (postgres != null)
				? postgres.cancelRequest().timeout(WaitCancels.ANSWER_TIMEOUT).onErrorResume((ex) -> Mono.empty())
				: Mono.empty();
		return cancel.then(LockSessionStatements.rollback(connection).timeout(WaitCancels.ANSWER_TIMEOUT))
			.onErrorResume((ex) -> {
				logger.debug("Rolling back the transaction of an invocation-scoped advisory lock failed", ex);
				return Mono.empty();
			})
			.then(closeReleased(connection));
	}

	@Override
	public Mono<Void> closeReleased(Connection connection) {
		return Mono.from(connection.close()).onErrorResume((ex) -> {
			logger.debug("Closing the connection of an invocation-scoped advisory lock failed", ex);
			return Mono.empty();
		});
	}

}
