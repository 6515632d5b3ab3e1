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

import com.zaxxer.hikari.HikariDataSource;

/**
 * A Hikari pool with a PostgreSQL JDBC URL that never connects, for the tests that need a
 * {@link javax.sql.DataSource} bean only to satisfy a condition (which beans exist, how
 * properties bind) and run no SQL: they do not start {@link TestDatabase}. It is a Hikari
 * pool with a URL, as the test database's is, so the same beans exist on it; a test that
 * asks it for a connection fails, naming the mistake.
 */
public class UnconnectedDataSource extends HikariDataSource {

	/**
	 * Create a pool that names a server but never starts, and so never connects.
	 */
	public UnconnectedDataSource() {
		setJdbcUrl("jdbc:postgresql://127.0.0.1:1/unconnected");
		setUsername("postgres");
		setPoolName("unconnected");
	}

	@Override
	public Connection getConnection() {
		throw new IllegalStateException("A test that runs no SQL asked for a connection: give it TestDatabase.get()");
	}

}
