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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.IssuedToken;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.LockSql.Opened;
import io.github.advisorylock.core.sql.PermitSql;
import io.github.advisorylock.core.sql.PermitSql.OpenedLimit;
import io.github.advisorylock.core.sql.PermitSql.PermitTry;
import org.jspecify.annotations.Nullable;

/**
 * The statements of an invocation-scoped lock's own session: the opening, which begins
 * its transaction and tries its keys in one round trip, the keep-alive that is its
 * heartbeat, and its marker. The try and the wait are {@link JdbcLockStatements}'.
 *
 * @author advisory-lock authors
 */
final class JdbcLockSessionStatements {

	/**
	 * Begins the lock's transaction: READ COMMITTED whatever the default (not through
	 * {@code Connection.setTransactionIsolation}, which changes the session, behind a
	 * pooler another client's), READ ONLY so that it takes no xid, named for an operator
	 * until it ends; and reads {@code transaction_timeout}, which would end the lock.
	 */
	private static final String BEGIN_INVOCATION = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY; "
			+ "SELECT pg_catalog.set_config('application_name', ?, true), "
			+ "pg_catalog.current_setting('transaction_timeout', true) AS transaction_timeout; ";

	private JdbcLockSessionStatements() {
	}

	/**
	 * Open the transaction of an invocation-scoped lock, try its keys and set its
	 * dead-man switch, in one round trip.
	 * @return what the try found, and {@code transaction_timeout} ({@code null} before
	 * PostgreSQL 17)
	 */
	static Opened beginInvocation(Connection connection, LockMode mode, List<Long> keys, String namespace,
			String applicationName, long deadManMillis) throws SQLException {
		String sql = BEGIN_INVOCATION + LockSql.JDBC.trySql(mode, keys.size(), namespace) + "; "
				+ LockSql.KEEP_ALIVE.formatted(deadManMillis);
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, applicationName);
			JdbcLockStatements.bindKeys(connection, statement, 2, keys, keys.size() > 1);
			statement.execute();
			// An update count (SET TRANSACTION), then the settings' row and the try's.
			String transactionTimeout = transactionTimeout(statement);
			try (ResultSet result = nextResultSet(statement, "try")) {
				return new Opened(JdbcLockStatements.tryResult(result, keys), transactionTimeout);
			}
		}
	}

	/** As {@link #beginInvocation}, trying a limit's permits in place of keys. */
	static OpenedLimit beginLimit(Connection connection, List<Long> slots, String namespace, String applicationName,
			long deadManMillis) throws SQLException {
		String sql = BEGIN_INVOCATION + PermitSql.JDBC.trySql(slots.size(), namespace) + "; "
				+ LockSql.KEEP_ALIVE.formatted(deadManMillis);
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, applicationName);
			for (int slot = 0; slot < slots.size(); slot++) {
				statement.setLong(slot + 2, slots.get(slot));
			}
			statement.execute();
			String transactionTimeout = transactionTimeout(statement);
			try (ResultSet result = nextResultSet(statement, "try")) {
				boolean row = result.next();
				return new OpenedLimit(PermitTry.read(row, row ? result.getObject(1, Integer.class) : null, slots),
						transactionTimeout);
			}
		}
	}

	/** Read the settings' row, after {@code SET TRANSACTION}'s update count. */
	private static @Nullable String transactionTimeout(Statement statement) throws SQLException {
		try (ResultSet settings = nextResultSet(statement, "settings")) {
			settings.next();
			return settings.getString(2);
		}
	}

	private static ResultSet nextResultSet(Statement statement, String what) throws SQLException {
		if (!statement.getMoreResults()) {
			throw new IllegalStateException("The opening statements of an invocation-scoped advisory lock gave no "
					+ what + " row: is something between the application and PostgreSQL rewriting statements?");
		}
		return statement.getResultSet();
	}

	/** Take a lock session's marker ({@link FenceSql#MARK}), held until it ends. */
	static SessionMarker mark(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(FenceSql.MARK)) {
			for (int attempt = 0; attempt < FenceSql.MARK_ATTEMPTS; attempt++) {
				int marker = ThreadLocalRandom.current().nextInt();
				statement.setInt(1, marker);
				try (ResultSet row = statement.executeQuery()) {
					row.next();
					if (row.getBoolean("marked")) {
						return new SessionMarker(marker, row.getString("database"));
					}
				}
			}
		}
		throw FenceSql.noFreeMarker();
	}

	/**
	 * Issue a session's fencing token ({@link FenceSql#TOKEN}) on another connection of
	 * the session's pool, committed before it is returned: by the statement's own end in
	 * auto-commit mode, else by an explicit commit.
	 * @param bound the bound on each answer, as on the session's own connection
	 * @return what the statement found
	 */
	static IssuedToken fencingToken(DataSource pool, String namespace, int marker, Duration bound) throws SQLException {
		try (Connection connection = pool.getConnection()) {
			int networkTimeout = connection.getNetworkTimeout();
			connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, bound.toMillis()));
			boolean autoCommit = connection.getAutoCommit();
			IssuedToken issued;
			try (PreparedStatement statement = connection
				.prepareStatement(LockSql.JDBC.commented(namespace, FenceSql.TOKEN))) {
				statement.setInt(1, marker);
				try (ResultSet row = statement.executeQuery()) {
					row.next();
					issued = new IssuedToken(row.getObject("token", Long.class), row.getString("database"));
				}
				if (!autoCommit) {
					connection.commit();
				}
			}
			catch (SQLException ex) {
				if (!autoCommit) {
					try {
						connection.rollback();
					}
					catch (SQLException rollbackFailure) {
						ex.addSuppressed(rollbackFailure);
					}
				}
				throw ex;
			}
			connection.setNetworkTimeout(Runnable::run, networkTimeout);
			return issued;
		}
	}

	/**
	 * Return a lock's heartbeat ({@link LockSql#KEEP_ALIVE}), commented with its
	 * namespace, which an operator sees as the session's last query.
	 */
	static String keepAliveSql(String namespace, long deadManMillis) {
		return LockSql.JDBC.commented(namespace, LockSql.KEEP_ALIVE.formatted(deadManMillis));
	}

	/** Send a lock session's keep-alive, from {@link #keepAliveSql}. */
	static void keepAlive(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}
