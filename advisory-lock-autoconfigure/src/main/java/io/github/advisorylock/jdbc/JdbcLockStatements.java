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

import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockLifecycle;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.LockSql.RefusalReason;
import io.github.advisorylock.core.sql.LockSql.TryResult;
import io.github.advisorylock.core.sql.PermitSql;
import org.jspecify.annotations.Nullable;

/**
 * The waits of both scopes over JDBC, and the binding and reading of every lock
 * statement's keys. The text, shared with R2DBC, and why each statement is written as it
 * is, are {@link LockSql}'s.
 *
 * @author advisory-lock authors
 */
final class JdbcLockStatements {

	private JdbcLockStatements() {
	}

	/**
	 * Run the statement that waits for keys a try found held, within one timeout for all
	 * of them; the template's close cancels it on the server.
	 * @return whether it ran: not on a standby, where it took nothing
	 * @throws SQLException if the statement fails; SQLSTATE {@code 55P03} when the wait
	 * ran out of time, {@code 57014} when it was cancelled
	 */
	static boolean waitLock(Connection connection, LockMode mode, List<Long> keys, Duration timeout, String namespace,
			LockLifecycle waits) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(LockSql.JDBC.waitSql(mode, namespace))) {
			statement.setLong(1, LockSql.timeoutMillis(timeout));
			bindKeys(connection, statement, 2, keys, true);
			return runWait(statement, waits);
		}
	}

	/**
	 * Run the statement that waits for one key without a try first, within the timeout;
	 * the template's close cancels it on the server.
	 * @return whether a lock was allowed: when not, nothing was set or taken
	 * @throws SQLException as {@link #waitLock} does
	 */
	static boolean waitOne(Connection connection, LockMode mode, long key, Duration timeout, String namespace,
			LockLifecycle waits) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(LockSql.JDBC.waitOneSql(mode, namespace))) {
			statement.setString(1, LockSql.waitOneTimeout(timeout));
			statement.setLong(2, key);
			return runWait(statement, waits);
		}
	}

	/**
	 * Run a waiting statement, cancellable by the template's close meanwhile.
	 * @return whether it answered a row
	 */
	private static boolean runWait(PreparedStatement statement, LockLifecycle waits) throws SQLException {
		// pgjdbc sends the cancel only while the statement runs, so a late one reaches no
		// other statement of the connection.
		Runnable ended = waits.whileWaiting(() -> cancel(statement));
		try (ResultSet result = statement.executeQuery()) {
			return result.next();
		}
		finally {
			ended.run();
		}
	}

	/**
	 * Run one slice of a limit's wait ({@link PermitSql#sliceSql}) in one round trip:
	 * pgjdbc sends the three statements of one text together.
	 * @param resumed whether the savepoint of a slice that ran out of time is set
	 * @param waited the index of the slot to wait for, from 1
	 * @return the slot taken, or {@code null} on a standby, where it took nothing
	 * @throws SQLException as {@link #waitLock} does
	 */
	static @Nullable Long waitPermitSlice(Connection connection, List<Long> slots, boolean resumed, Duration slice,
			int waited, String namespace, LockLifecycle waits) throws SQLException {
		try (PreparedStatement statement = connection
			.prepareStatement(PermitSql.JDBC.sliceSql(slots.size(), resumed, namespace))) {
			statement.setLong(1, Math.max(1, slice.toMillis()));
			statement.setInt(2, waited);
			bindKeys(connection, statement, 3, slots, true);
			Runnable ended = waits.whileWaiting(() -> cancel(statement));
			try {
				boolean rows = statement.execute();
				while (!rows) {
					if (statement.getUpdateCount() == -1) {
						throw new SQLException("A slice of a limit's wait returned no row");
					}
					rows = statement.getMoreResults();
				}
				try (ResultSet result = statement.getResultSet()) {
					return result.next() ? result.getLong(1) : null;
				}
			}
			finally {
				ended.run();
			}
		}
	}

	/**
	 * End a limit's wait whose last slice ran out of time: roll back to the savepoint,
	 * which ends the aborted slice, and release it.
	 */
	static void endPermitWait(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(PermitSql.WAIT_END);
		}
	}

	private static void cancel(Statement statement) {
		try {
			statement.cancel();
		}
		catch (SQLException ex) {
			// The wait ends with its connection, when the pool closes.
		}
	}

	/** Read why a try was refused: one more round trip, on that failure path only. */
	static RefusalReason readRefusalReason(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(LockSql.REFUSAL);
				ResultSet result = statement.executeQuery()) {
			result.next();
			return new RefusalReason(result.getString(1), result.getBoolean(2));
		}
	}

	/**
	 * Bind the keys: the key itself when a statement takes one, else the {@code bigint[]}
	 * of them.
	 */
	static void bindKeys(Connection connection, PreparedStatement statement, int index, List<Long> keys, boolean array)
			throws SQLException {
		if (array) {
			statement.setArray(index, connection.createArrayOf("bigint", keys.toArray(Long[]::new)));
		}
		else {
			statement.setLong(index, keys.get(0));
		}
	}

	/**
	 * Read the row of a try: none when the check refused the lock; for one key whether it
	 * was taken, for several the first one found held.
	 */
	static TryResult tryResult(ResultSet result, List<Long> keys) throws SQLException {
		boolean row = result.next();
		return TryResult.read(row, row ? result.getObject(1) : null, keys);
	}

}
