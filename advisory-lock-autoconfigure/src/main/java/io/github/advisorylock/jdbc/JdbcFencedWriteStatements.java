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
import java.time.Duration;
import java.util.List;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.plan.FencedKeys;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.FenceResult;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import io.github.advisorylock.core.sql.LockSql;

/**
 * The statements of a fenced write over JDBC ({@link FenceSql}), in one round trip.
 *
 * @author advisory-lock authors
 */
final class JdbcFencedWriteStatements {

	private JdbcFencedWriteStatements() {
	}

	/**
	 * Take the fences of the keys and check their enclosing sessions.
	 * @param markers the marker of each key's session, in the keys' order
	 */
	static FenceResult fence(Connection connection, List<Long> keys, List<SessionMarker> markers, Duration idleTimeout,
			LockRequest request) throws SQLException {
		Long[] values = keys.toArray(Long[]::new);
		try (PreparedStatement statement = connection
			.prepareStatement(LockSql.JDBC.commented(request.namespace(), FenceSql.FENCE_AND_CHECK))) {
			statement.setArray(1, connection.createArrayOf("bigint", values));
			statement.setString(2, FenceSql.idleTimeout(idleTimeout));
			statement.setArray(3, connection.createArrayOf("bigint", values));
			statement.setArray(4, connection.createArrayOf("int4",
					markers.stream().map(SessionMarker::marker).toArray(Integer[]::new)));
			statement.execute();
			boolean lockable;
			try (ResultSet fenced = statement.getResultSet()) {
				lockable = fenced.next();
				if (lockable) {
					FencedKeys.checkSameDatabase(fenced.getString("database"), markers, request);
				}
			}
			if (!statement.getMoreResults()) {
				throw new IllegalStateException("The check of a fenced advisory lock write gave no row set: is "
						+ "something between the application and PostgreSQL rewriting statements?");
			}
			try (ResultSet check = statement.getResultSet()) {
				return new FenceResult(lockable, check.next() ? check.getLong(1) : null);
			}
		}
	}

}
