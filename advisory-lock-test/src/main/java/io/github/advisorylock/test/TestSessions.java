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

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Where the kit opens sessions of its own: the application's database, through its
 * {@code DataSource} or R2DBC {@code ConnectionFactory}, outside any Spring transaction.
 *
 * @author advisory-lock authors
 */
interface TestSessions {

	/**
	 * Whether R2DBC is on the class path, so that the classes that use it may be loaded.
	 */
	boolean R2DBC_PRESENT = ClassUtils.isPresent("io.r2dbc.spi.ConnectionFactory", TestSessions.class.getClassLoader());

	/**
	 * How long the kit waits for a statement, or for a fact in {@code pg_locks}: long
	 * enough for any real wait on a loaded machine; it only turns a hang into a failure.
	 */
	Duration HANG_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * Open a session on a connection of its own.
	 * @return the session, in auto-commit until {@link TestSession#beginTransaction()}
	 */
	TestSession open();

	/**
	 * Return the sessions of an application context: its default {@code DataSource}, or
	 * without one its default {@code ConnectionFactory}.
	 * @param beanFactory the application context
	 * @return the sessions
	 * @throws IllegalStateException naming what the context has, if neither is there
	 */
	static TestSessions of(ListableBeanFactory beanFactory) {
		DataSource dataSource = beanFactory.getBeanProvider(DataSource.class).getIfUnique();
		if (dataSource != null) {
			return new JdbcTestSessions(dataSource);
		}
		if (R2DBC_PRESENT) {
			TestSessions r2dbc = R2dbcTestSessions.of(beanFactory);
			if (r2dbc != null) {
				return r2dbc;
			}
		}
		throw new IllegalStateException("AdvisoryLockTester needs the application's database: one DataSource bean, or "
				+ "one R2DBC ConnectionFactory bean, or one of several marked @Primary. The context has the DataSource "
				+ "beans " + Arrays.toString(beanFactory.getBeanNamesForType(DataSource.class))
				+ (R2DBC_PRESENT ? R2dbcTestSessions.beanNames(beanFactory) : "")
				+ "; mark the one the locks use @Primary");
	}

	/**
	 * A session of the kit's own.
	 */
	interface TestSession extends AutoCloseable {

		/**
		 * Start a transaction, which {@link #close()} rolls back.
		 */
		void beginTransaction();

		/**
		 * Run a query with {@code ?} parameters.
		 * @param sql the query
		 * @param parameters its parameters
		 * @return the rows, each by column name
		 */
		List<Map<String, Object>> query(String sql, Object... parameters);

		/**
		 * Roll back an open transaction, releasing its locks, and give the connection
		 * back.
		 */
		@Override
		void close();

	}

}
