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
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.session.ReactiveLockSession;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.IssuedToken;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * A lock session over R2DBC: the {@link ReactiveLockSession} of one invocation-scoped
 * call on a connection of its own.
 *
 * @author advisory-lock authors
 */
final class R2dbcLockSession extends ReactiveLockSession {

	private final Connection connection;

	private final String heartbeatSql;

	private final ConnectionFactory driver;

	/**
	 * Create the lock of a call, just acquired (see {@link ReactiveLockSession}).
	 * @param resource the application's connection factory, which a nested call finds it
	 * by
	 * @param driver the driver's factory under it, where a fencing token's connection
	 * comes from
	 */
	R2dbcLockSession(String namespace, LockMode mode, LockKeys keys, Object resource, ConnectionFactory driver,
			Connection connection, Acquisition acquisition, String heartbeatSql, long acquiredNanos, Duration deadMan,
			@Nullable Duration transactionTimeout) {
		super(namespace, mode, keys, resource, acquisition, acquiredNanos, deadMan, transactionTimeout);
		this.driver = driver;
		this.connection = connection;
		this.heartbeatSql = heartbeatSql;
	}

	@Override
	protected Mono<Void> keepAlive() {
		return R2dbcLockSessionStatements.keepAlive(this.connection, this.heartbeatSql);
	}

	/**
	 * Roll back off the thread that asks: the release follows the work's end, which may
	 * be delivered by this connection's driver ({@link R2dbcDriverConnections}).
	 */
	@Override
	protected Mono<Void> rollback() {
		return R2dbcDriverConnections.offTheDelivery(R2dbcLockSessionStatements.rollback(this.connection));
	}

	@Override
	protected Mono<IssuedToken> issueToken(SessionMarker marker) {
		return R2dbcLockSessionStatements.fencingToken(this.driver, namespace(), marker.marker())
			.timeout(deadMan())
			.onErrorMap((ex) -> R2dbcExceptions.translate("Issue the fencing token of advisory lock " + description(),
					FenceSql.TOKEN, ex));
	}

	@Override
	protected Mono<SessionMarker> mark() {
		return R2dbcLockSessionStatements.mark(this.connection);
	}

}
