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

package io.github.advisorylock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.session.BlockingLockSession;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.IssuedToken;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import org.jspecify.annotations.Nullable;

/**
 * A lock session over JDBC: the {@link BlockingLockSession} of one invocation-scoped call
 * on a connection of its own. Every statement is bounded by the connection's network
 * timeout, which the opening set to the dead-man time, so none can hang on a dead link.
 */
final class JdbcLockSession extends BlockingLockSession {

	private final Connection connection;

	private final String heartbeatSql;

	private final DataSource pool;

	/**
	 * Create the lock of a call, just acquired (see {@link BlockingLockSession}).
	 * @param target what its locks are known by ({@link JdbcDataSourceUnwrapping#target})
	 * @param pool where its connection came from, and a fencing token's comes from
	 */
	JdbcLockSession(String namespace, LockMode mode, LockKeys keys, DataSource target, Connection connection,
			DataSource pool, Acquisition acquisition, String heartbeatSql, long acquiredNanos, Duration deadMan,
			@Nullable Duration transactionTimeout) {
		super(namespace, mode, keys, target, acquisition, acquiredNanos, deadMan, transactionTimeout);
		this.connection = connection;
		this.pool = pool;
		this.heartbeatSql = heartbeatSql;
	}

	@Override
	protected void keepAlive(@Nullable Duration within) throws SQLException {
		if (within == null) {
			JdbcLockSessionStatements.keepAlive(this.connection, this.heartbeatSql);
			return;
		}
		// Never later than a heartbeat's answer, then the heartbeat's bound again. A
		// failure loses the session, whose connection is dropped: nothing to restore.
		int networkTimeout = this.connection.getNetworkTimeout();
		long bound = (networkTimeout > 0) ? Math.min(within.toMillis(), networkTimeout) : within.toMillis();
		this.connection.setNetworkTimeout(Runnable::run, (int) Math.max(1, Math.min(Integer.MAX_VALUE, bound)));
		JdbcLockSessionStatements.keepAlive(this.connection, this.heartbeatSql);
		this.connection.setNetworkTimeout(Runnable::run, networkTimeout);
	}

	@Override
	protected SessionMarker mark() throws SQLException {
		return JdbcLockSessionStatements.mark(this.connection);
	}

	@Override
	protected IssuedToken issueToken(SessionMarker marker) {
		try {
			return JdbcLockSessionStatements.fencingToken(this.pool, namespace(), marker.marker(), deadMan());
		}
		catch (SQLException ex) {
			throw JdbcExceptions.translate(JdbcExceptions.postgresTranslator(),
					"Issue the fencing token of advisory lock " + description(), FenceSql.TOKEN, ex);
		}
	}

	@Override
	protected void rollback() throws SQLException {
		this.connection.rollback();
	}

}
