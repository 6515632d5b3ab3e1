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

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@link DataSource} that records what the library sends through its connections: how
 * many statements it creates (to show that a failure happened before any SQL), and the
 * scalar parameters it binds (to show the timeout that reaches PostgreSQL).
 */
class RecordingDataSource extends DelegatingDataSource {

	private static final Set<String> STATEMENT_FACTORIES = Set.of("createStatement", "prepareStatement", "prepareCall");

	private final AtomicInteger statements = new AtomicInteger();

	private final List<String> parameters = new CopyOnWriteArrayList<>();

	RecordingDataSource(DataSource target) {
		super(target);
	}

	int statements() {
		return this.statements.get();
	}

	List<String> parameters() {
		return this.parameters;
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = super.getConnection();
		return proxy(Connection.class, connection, (method, args, result) -> {
			if (STATEMENT_FACTORIES.contains(method)) {
				this.statements.incrementAndGet();
				if (result instanceof PreparedStatement statement) {
					return proxy(PreparedStatement.class, statement, this::recordParameter);
				}
			}
			return result;
		});
	}

	private Object recordParameter(String method, Object[] args, Object result) {
		if (method.equals("setLong")) {
			this.parameters.add(String.valueOf(args[1]));
		}
		return result;
	}

	private static <T> T proxy(Class<T> type, T target, Interception interception) {
		InvocationHandler handler = (proxy, method, args) -> {
			try {
				return interception.after(method.getName(), args, method.invoke(target, args));
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		};
		return type
			.cast(Proxy.newProxyInstance(RecordingDataSource.class.getClassLoader(), new Class<?>[] { type }, handler));
	}

	@FunctionalInterface
	private interface Interception {

		Object after(String method, Object[] args, Object result);

	}

}
