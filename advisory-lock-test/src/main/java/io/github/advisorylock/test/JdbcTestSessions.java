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

package io.github.advisorylock.test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

/**
 * Sessions on connections of the application's {@link DataSource}, taken from it
 * directly, so that no Spring transaction of the test's thread is joined.
 *
 * @author advisory-lock authors
 */
final class JdbcTestSessions implements TestSessions {

	private final DataSource dataSource;

	JdbcTestSessions(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	@Override
	public TestSession open() {
		try {
			Connection connection = this.dataSource.getConnection();
			try {
				// A pool may hand out connections with auto-commit off: each statement of
				// the
				// kit's polls must see the server's present, not one transaction's
				// snapshot
				// of pg_stat_activity.
				connection.setAutoCommit(true);
			}
			catch (SQLException ex) {
				connection.close();
				throw ex;
			}
			return new Session(connection);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not open a connection of the application's DataSource", ex);
		}
	}

	private static final class Session implements TestSession {

		private final Connection connection;

		Session(Connection connection) {
			this.connection = connection;
		}

		@Override
		public void beginTransaction() {
			try {
				this.connection.setAutoCommit(false);
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not start a transaction", ex);
			}
		}

		@Override
		public List<Map<String, Object>> query(String sql, Object... parameters) {
			try (PreparedStatement statement = this.connection.prepareStatement(sql)) {
				statement.setQueryTimeout((int) HANG_TIMEOUT.toSeconds());
				for (int i = 0; i < parameters.length; i++) {
					statement.setObject(i + 1, parameters[i]);
				}
				try (ResultSet result = statement.executeQuery()) {
					ResultSetMetaData metaData = result.getMetaData();
					List<Map<String, Object>> rows = new ArrayList<>();
					while (result.next()) {
						Map<String, Object> row = new LinkedHashMap<>();
						for (int column = 1; column <= metaData.getColumnCount(); column++) {
							row.put(metaData.getColumnLabel(column), result.getObject(column));
						}
						rows.add(row);
					}
					return rows;
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not run " + sql, ex);
			}
		}

		@Override
		public void close() {
			try (Connection connection = this.connection) {
				if (!connection.isClosed() && !connection.getAutoCommit()) {
					connection.rollback();
				}
			}
			catch (SQLException ex) {
				// The connection is closed all the same, so that a pool gets it back (and
				// discards it if broken).
				throw new IllegalStateException("Could not roll back the kit's transaction", ex);
			}
		}

	}

}
