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

package io.github.advisorylock;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Two databases of the test server, for an application with two {@link DataSource}s: the
 * test database, and a second one made once per JVM. Advisory locks of one database are
 * not those of the other, so where a lock was taken shows in
 * {@link #locksIn(DataSource)}. An application context gets them as beans from
 * {@link DataSources}, and a transaction manager for each from
 * {@link TransactionManagers}.
 */
public final class TwoDatabases {

	/** The name of the second database. */
	public static final String SECOND = "advisory_lock_second";

	private static String secondUrl;

	private TwoDatabases() {
	}

	/**
	 * Return a new pool on the test database; the caller closes it.
	 * @param maximumPoolSize the most connections
	 * @return the pool
	 */
	public static HikariDataSource first(int maximumPoolSize) {
		return TestDatabase.get().newDataSource(maximumPoolSize);
	}

	/**
	 * Return a new pool on the second database; the caller closes it.
	 * @param maximumPoolSize the most connections
	 * @return the pool
	 */
	public static HikariDataSource second(int maximumPoolSize) {
		return TestDatabase.get().newDataSource(secondUrl(), maximumPoolSize);
	}

	/**
	 * Return the JDBC URL of the second database, making it at the first call.
	 * @return the URL
	 */
	public static synchronized String secondUrl() {
		if (secondUrl == null) {
			secondUrl = TestDatabase.get().createDatabase(SECOND);
		}
		return secondUrl;
	}

	/**
	 * Return the two pools by the bean names the tests give them, {@code first} and
	 * {@code second}, in that order.
	 * @param first the pool on the test database
	 * @param second the pool on the second database
	 * @return the data sources by name
	 */
	public static Map<String, DataSource> byName(DataSource first, DataSource second) {
		Map<String, DataSource> dataSources = new LinkedHashMap<>();
		dataSources.put("first", first);
		dataSources.put("second", second);
		return dataSources;
	}

	/**
	 * Return the advisory locks, held and awaited, of the database a data source connects
	 * to, read on a connection of its own (never one bound to the caller's transaction).
	 * @param dataSource the data source
	 * @return the locks on bigint keys, by key, granted first
	 */
	public static List<AdvisoryLock> locksIn(DataSource dataSource) {
		return new PgLocks(dataSource).inThisDatabase();
	}

	/**
	 * Return the keys of the advisory locks held in the database a data source connects
	 * to.
	 * @param dataSource the data source
	 * @return the keys
	 */
	public static List<Long> keysIn(DataSource dataSource) {
		return locksIn(dataSource).stream().filter(AdvisoryLock::granted).map(AdvisoryLock::key).toList();
	}

	/**
	 * The two databases as the {@code DataSource} beans of an application: a pool of four
	 * connections on each, named {@code first} and {@code second}, neither primary. The
	 * context closes them.
	 */
	@Configuration(proxyBeanMethods = false)
	public static class DataSources {

		@Bean
		HikariDataSource first() {
			return TwoDatabases.first(4);
		}

		@Bean
		HikariDataSource second() {
			return TwoDatabases.second(4);
		}

	}

	/**
	 * A transaction manager for each of the {@link DataSources}:
	 * {@code firstTransactionManager} and {@code secondTransactionManager}.
	 */
	@Configuration(proxyBeanMethods = false)
	public static class TransactionManagers {

		@Bean
		DataSourceTransactionManager firstTransactionManager(@Qualifier("first") DataSource first) {
			return new DataSourceTransactionManager(first);
		}

		@Bean
		DataSourceTransactionManager secondTransactionManager(@Qualifier("second") DataSource second) {
			return new DataSourceTransactionManager(second);
		}

	}

}
