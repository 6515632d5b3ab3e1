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

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;

/**
 * R2DBC connection pools to the servers the JDBC tests use: the test database, directly
 * or through {@link PgBouncer}, pooled by r2dbc-pool as Spring Boot pools them.
 *
 * @author advisory-lock authors
 */
public final class R2dbcConnectionFactories {

	private R2dbcConnectionFactories() {
	}

	/**
	 * Create a pool of R2DBC connections straight to the test database; the caller
	 * disposes of it.
	 * @param maxSize the most connections
	 * @return the pool
	 */
	public static ConnectionPool direct(int maxSize) {
		return pool(TestDatabase.get().url(), maxSize);
	}

	/**
	 * Create a pool of R2DBC connections through PgBouncer; the caller disposes of it.
	 * Where PgBouncer does not track prepared statements (before 1.21), the driver's
	 * statement cache is off, as docs/pgbouncer.md tells applications to set it.
	 * @param database {@link PgBouncer#POOLED} or {@link PgBouncer#ONE_SERVER_CONNECTION}
	 * @param maxSize the most client connections
	 * @return the pool
	 */
	public static ConnectionPool throughPgBouncer(String database, int maxSize) {
		return pool(PgBouncer.get().url(database), maxSize);
	}

	/**
	 * Return the Spring Boot properties that point {@code spring.r2dbc} at the test
	 * database.
	 * @return the URL, user name and password properties
	 */
	public static Map<String, String> springR2dbcProperties() {
		TestDatabase database = TestDatabase.get();
		Target target = Target.of(database.url());
		return Map.of("spring.r2dbc.url",
				"r2dbc:postgresql://" + target.host() + ":" + target.port() + "/" + target.database(),
				"spring.r2dbc.username", database.username(), "spring.r2dbc.password", database.password());
	}

	/**
	 * Return {@link #springR2dbcProperties()} as {@code name=value} pairs.
	 * @return the pairs
	 */
	public static String[] springR2dbcPropertyValues() {
		return springR2dbcProperties().entrySet()
			.stream()
			.map((property) -> property.getKey() + "=" + property.getValue())
			.toArray(String[]::new);
	}

	/**
	 * Create a pool of R2DBC connections to the server of a JDBC URL of the test
	 * database, PgBouncer's, or one through a {@link FreezableRelay}; the caller disposes
	 * of it.
	 * @param jdbcUrl a {@code jdbc:postgresql://host:port/database} URL
	 * @param maxSize the most connections
	 * @return the pool
	 */
	public static ConnectionPool pool(String jdbcUrl, int maxSize) {
		return pool(jdbcUrl, maxSize, (configuration) -> {
		});
	}

	/**
	 * Create a pool as {@link #pool(String, int)} does, with the driver's configuration
	 * changed by the caller.
	 * @param jdbcUrl a {@code jdbc:postgresql://host:port/database} URL
	 * @param maxSize the most connections
	 * @param customizer what the caller changes in the driver's configuration
	 * @return the pool
	 */
	public static ConnectionPool pool(String jdbcUrl, int maxSize,
			Consumer<PostgresqlConnectionConfiguration.Builder> customizer) {
		TestDatabase database = TestDatabase.get();
		Target target = Target.of(jdbcUrl);
		PostgresqlConnectionConfiguration.Builder configuration = PostgresqlConnectionConfiguration.builder()
			.host(target.host())
			.port(target.port())
			.database(target.database())
			.username(database.username())
			.password(database.password())
			.applicationName("advisory-lock-tests-r2dbc");
		if (jdbcUrl.contains("prepareThreshold=0")) {
			configuration.preparedStatementCacheQueries(0);
		}
		customizer.accept(configuration);
		return new ConnectionPool(
				ConnectionPoolConfiguration.builder(new PostgresqlConnectionFactory(configuration.build()))
					.initialSize(0)
					.maxSize(maxSize)
					.maxCreateConnectionTime(Duration.ofSeconds(10))
					.build());
	}

	/**
	 * Where a JDBC URL points.
	 */
	private record Target(String host, int port, String database) {

		static Target of(String jdbcUrl) {
			URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
			return new Target(uri.getHost(), uri.getPort(), uri.getPath().substring(1));
		}

	}

}
