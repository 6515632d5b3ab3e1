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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockSql;
import io.github.advisorylock.core.LockSql.TryResult;
import org.jspecify.annotations.Nullable;

/**
 * The statements of an invocation-scoped lock's own session, each with the code that
 * binds its parameters and reads its rows: the one that opens the lock's transaction and
 * tries its keys in a single round trip, and the keep-alive that is its heartbeat.
 *
 * <p>
 * The try inside the opening round trip, the wait after it and their namespace comment
 * are those of {@link AdvisoryLockStatements}, shared with the transaction scope.
 *
 * @author advisory-lock authors
 */
final class LockSessionStatements {

	/**
	 * Opens the transaction of an invocation-scoped lock, before its try: READ COMMITTED
	 * whatever the database's default (never through
	 * {@code Connection.setTransactionIsolation}, which changes the session and, behind a
	 * pooler, another client's), READ ONLY so that it never takes an xid, and named for
	 * an operator, {@code LOCAL} so that the name ends with the transaction. Its result
	 * reads {@code transaction_timeout} ({@code NULL} before PostgreSQL 17), which would
	 * end the lock.
	 */
	private static final String BEGIN_INVOCATION = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY; "
			+ "SELECT set_config('application_name', ?, true), "
			+ "current_setting('transaction_timeout', true) AS transaction_timeout; ";

	/**
	 * The backend's pid, the transaction's virtual id and the backend's start, which
	 * identify the lock's session to a {@linkplain FencedWriteStatements fenced write}
	 * (the virtual id read from the transaction's lock on it, which every transaction
	 * holds from its start). Read once, at a session's first fenced write, not when it
	 * opens: reading {@code pg_locks} copies the server's whole lock table, which took
	 * more than the rest of an invocation-scoped lock's round trip in the benchmarks, and
	 * most sessions never fence.
	 */
	private static final String IDENTITY = "SELECT pg_backend_pid() AS pid, "
			+ "(SELECT virtualtransaction FROM pg_locks WHERE locktype = 'virtualxid' AND pid = pg_backend_pid() "
			+ "AND virtualxid = virtualtransaction LIMIT 1) AS virtualtransaction, "
			+ "(SELECT backend_start::text FROM pg_stat_get_activity(pg_backend_pid())) AS backend_start";

	private LockSessionStatements() {
	}

	/**
	 * Open the transaction of an invocation-scoped lock, try its keys and set its
	 * dead-man switch, in one round trip: {@code SET TRANSACTION} (no result set), a row
	 * of {@code transaction_timeout}, the try of {@link AdvisoryLockStatements#tryLock},
	 * then the {@linkplain #keepAliveSql keep-alive} (no result set).
	 * @param connection the lock's own connection, with auto-commit off
	 * @param mode exclusive or shared
	 * @param keys the distinct keys, sorted, at least one
	 * @param namespace the namespace, named in a leading comment
	 * @param applicationName the session's name for the transaction
	 * @param deadManMillis the session's idle time after which PostgreSQL ends it, and
	 * the lock with it
	 * @return what the try found, and {@code transaction_timeout} as PostgreSQL shows it
	 * ({@code null} before 17)
	 * @throws SQLException if a statement fails
	 */
	static OpenedSession beginInvocation(Connection connection, LockMode mode, List<Long> keys, String namespace,
			String applicationName, long deadManMillis) throws SQLException {
		String sql = BEGIN_INVOCATION + LockSql.JDBC.trySql(mode, keys.size(), namespace) + "; "
				+ LockSql.KEEP_ALIVE.formatted(deadManMillis);
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, applicationName);
			AdvisoryLockStatements.bindKeys(connection, statement, 2, keys, keys.size() > 1);
			statement.execute();
			// SET TRANSACTION gives an update count, then come the settings' row and the
			// try's.
			String transactionTimeout;
			try (ResultSet settings = nextResultSet(statement, "settings")) {
				settings.next();
				transactionTimeout = settings.getString(2);
			}
			try (ResultSet result = nextResultSet(statement, "try")) {
				return new OpenedSession(AdvisoryLockStatements.tryResult(result, keys), transactionTimeout);
			}
		}
	}

	private static ResultSet nextResultSet(Statement statement, String what) throws SQLException {
		if (!statement.getMoreResults()) {
			throw new IllegalStateException("The opening statements of an invocation-scoped advisory lock gave no "
					+ what + " row: is something between the application and PostgreSQL rewriting statements?");
		}
		return statement.getResultSet();
	}

	/**
	 * Read what identifies a lock session to a fenced write, on its own connection.
	 * @param connection the lock's connection, its transaction open
	 * @return the identity, or {@code null} if {@code pg_locks} did not show the
	 * session's transaction
	 * @throws SQLException if the statement fails
	 */
	static @Nullable SessionIdentity identity(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(IDENTITY)) {
			row.next();
			String virtualTransaction = row.getString("virtualtransaction");
			return (virtualTransaction != null)
					? new SessionIdentity(row.getInt("pid"), virtualTransaction, row.getString("backend_start")) : null;
		}
	}

	/**
	 * Return the heartbeat of an invocation-scoped lock (see {@code KEEP_ALIVE}), which
	 * an operator sees as the session's last query. Built once per lock, and sent by
	 * {@link #keepAlive}.
	 * @param namespace the namespace, named in a leading comment
	 * @param deadManMillis the session's idle time after which PostgreSQL ends it
	 * @return the SQL
	 */
	static String keepAliveSql(String namespace, long deadManMillis) {
		return LockSql.JDBC.commented(namespace, LockSql.KEEP_ALIVE.formatted(deadManMillis));
	}

	/**
	 * Send a lock session's keep-alive statement.
	 * @param connection the lock's connection
	 * @param sql from {@link #keepAliveSql}
	 * @throws SQLException if it fails
	 */
	static void keepAlive(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	/**
	 * What the opening statements of an invocation-scoped lock found.
	 *
	 * @param tryResult what the try found
	 * @param transactionTimeout {@code transaction_timeout} as PostgreSQL shows it, or
	 * {@code null} before 17
	 */
	record OpenedSession(TryResult tryResult, @Nullable String transactionTimeout) {

	}

	/**
	 * What identifies a lock session to a fenced write, as {@code pg_locks} shows it on
	 * the rows of the session's locks, its backend's pid and its transaction's virtual
	 * id, and as {@code pg_stat_activity} shows it to roles allowed to see it, its
	 * backend's start (see {@link FencedWriteStatements} for why).
	 *
	 * @param pid the backend's process id
	 * @param virtualTransaction the virtual id of the lock's transaction
	 * @param backendStart when the backend started, as text, or {@code null} if unknown
	 */
	record SessionIdentity(int pid, String virtualTransaction, @Nullable String backendStart) {

	}

}
