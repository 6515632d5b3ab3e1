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

package io.github.advisorylock.testsupport;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * A transaction of another session that holds advisory locks taken with plain SQL,
 * independent of the library, until the test commits or rolls it back.
 */
public final class LockHolder implements AutoCloseable {

	private final Connection connection;

	private final int pid;

	private LockHolder(Connection connection, int pid) {
		this.connection = connection;
		this.pid = pid;
	}

	/**
	 * Open a transaction on a new connection and take exclusive locks on the keys.
	 * @param dataSource where to take the connection from
	 * @param keys the 64-bit keys
	 * @return the holder
	 */
	public static LockHolder exclusive(DataSource dataSource, long... keys) {
		return hold(dataSource, "pg_advisory_xact_lock", keys);
	}

	/**
	 * Open a transaction on a new connection and take shared locks on the keys.
	 * @param dataSource where to take the connection from
	 * @param keys the 64-bit keys
	 * @return the holder
	 */
	public static LockHolder shared(DataSource dataSource, long... keys) {
		return hold(dataSource, "pg_advisory_xact_lock_shared", keys);
	}

	private static LockHolder hold(DataSource dataSource, String function, long... keys) {
		try {
			Connection connection = dataSource.getConnection();
			try {
				connection.setAutoCommit(false);
				for (long key : keys) {
					try (PreparedStatement statement = connection.prepareStatement("SELECT " + function + "(?)")) {
						statement.setLong(1, key);
						statement.execute();
					}
				}
				return new LockHolder(connection, pid(connection));
			}
			catch (SQLException | RuntimeException ex) {
				connection.close();
				throw ex;
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not take advisory locks with " + function, ex);
		}
	}

	private static int pid(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT pg_backend_pid()");
				ResultSet result = statement.executeQuery()) {
			result.next();
			return result.getInt(1);
		}
	}

	/**
	 * Return the backend process id of the holding session.
	 * @return the pid
	 */
	public int pid() {
		return this.pid;
	}

	/**
	 * Run a statement in the holder's transaction, so that its effect becomes visible
	 * when the holder commits, as the writes of a real lock holder do.
	 * @param sql the statement, with {@code ?} parameters
	 * @param parameters the parameters
	 * @return the number of rows the statement changed
	 */
	public int update(String sql, Object... parameters) {
		try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setObject(i + 1, parameters[i]);
			}
			return statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run " + sql + " in the lock holder's transaction", ex);
		}
	}

	/**
	 * Commit the transaction, releasing its locks, and return the connection.
	 */
	public void commit() {
		end(true);
	}

	/**
	 * Roll the transaction back, releasing its locks, and return the connection.
	 */
	public void rollback() {
		end(false);
	}

	private void end(boolean commit) {
		try (Connection connection = this.connection) {
			if (!connection.isClosed()) {
				if (commit) {
					connection.commit();
				}
				else {
					connection.rollback();
				}
			}
		}
		catch (SQLException ex) {
			// The connection is closed all the same, so that a pool gets it back (and
			// discards it if broken).
			throw new IllegalStateException("Could not end the lock holder's transaction", ex);
		}
	}

	/**
	 * Roll back if still open.
	 */
	@Override
	public void close() {
		end(false);
	}

}
