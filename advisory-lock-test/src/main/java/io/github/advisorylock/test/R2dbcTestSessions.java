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

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.advisorylock.core.sql.LockSql;
import io.r2dbc.spi.ColumnMetadata;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Statement;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Sessions on connections of the application's R2DBC {@link ConnectionFactory}. A test
 * runs on its own thread, so the kit blocks there for each statement, bounded by
 * {@link #HANG_TIMEOUT}.
 *
 * @author advisory-lock authors
 */
final class R2dbcTestSessions implements TestSessions {

	private final ConnectionFactory connectionFactory;

	private R2dbcTestSessions(ConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	static @Nullable TestSessions of(ListableBeanFactory beanFactory) {
		ConnectionFactory connectionFactory = beanFactory.getBeanProvider(ConnectionFactory.class).getIfUnique();
		return (connectionFactory != null) ? new R2dbcTestSessions(connectionFactory) : null;
	}

	static String beanNames(ListableBeanFactory beanFactory) {
		return " and the ConnectionFactory beans "
				+ Arrays.toString(beanFactory.getBeanNamesForType(ConnectionFactory.class));
	}

	@Override
	public TestSession open() {
		Connection connection = Mono.from(this.connectionFactory.create()).block(HANG_TIMEOUT);
		if (connection == null) {
			throw new IllegalStateException("The application's ConnectionFactory gave no connection");
		}
		return new Session(connection);
	}

	private static final class Session implements TestSession {

		private final Connection connection;

		private boolean inTransaction;

		Session(Connection connection) {
			this.connection = connection;
		}

		@Override
		public void beginTransaction() {
			Mono.from(this.connection.beginTransaction()).block(HANG_TIMEOUT);
			this.inTransaction = true;
		}

		@Override
		public List<Map<String, Object>> query(String sql, Object... parameters) {
			Statement statement = this.connection.createStatement(LockSql.numbered(sql));
			for (int i = 0; i < parameters.length; i++) {
				statement.bind(i, parameters[i]);
			}
			List<Map<String, Object>> rows = Flux.from(statement.execute())
				.concatMap((result) -> result.map((row, metadata) -> {
					Map<String, Object> values = new LinkedHashMap<>();
					for (ColumnMetadata column : metadata.getColumnMetadatas()) {
						values.put(column.getName(), row.get(column.getName()));
					}
					return values;
				}))
				.collectList()
				.block(HANG_TIMEOUT);
			return (rows != null) ? rows : List.of();
		}

		@Override
		public void close() {
			try {
				if (this.inTransaction) {
					Mono.from(this.connection.rollbackTransaction()).block(HANG_TIMEOUT);
				}
			}
			finally {
				// Closed all the same, so that a pool gets the connection back (and
				// discards it if broken).
				Mono.from(this.connection.close()).block(HANG_TIMEOUT);
			}
		}

	}

}
