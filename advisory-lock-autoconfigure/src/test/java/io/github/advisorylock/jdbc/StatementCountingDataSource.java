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
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@link DataSource} that counts the statements created on its connections, to show that a failure happened before
 * any SQL was sent.
 */
class StatementCountingDataSource extends DelegatingDataSource {

	private static final Set<String> STATEMENT_FACTORIES = Set.of("createStatement", "prepareStatement",
			"prepareCall");

	private final AtomicInteger statements = new AtomicInteger();

	StatementCountingDataSource(DataSource target) {
		super(target);
	}

	int statements() {
		return this.statements.get();
	}

	@Override
	public Connection getConnection() throws java.sql.SQLException {
		return counting(super.getConnection());
	}

	private Connection counting(Connection connection) {
		InvocationHandler handler = (proxy, method, args) -> {
			if (STATEMENT_FACTORIES.contains(method.getName())) {
				this.statements.incrementAndGet();
			}
			try {
				return method.invoke(connection, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		};
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				handler);
	}

}
