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

package io.github.advisorylock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import org.springframework.core.io.ClassPathResource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.StreamUtils;

/**
 * The peers users would otherwise pick, set up as their documentation says: Spring
 * Integration's {@link JdbcLockRegistry} on the {@code INT_LOCK} table of the schema
 * script in its jar, and ShedLock's {@link JdbcTemplateLockProvider} on its
 * {@code shedlock} table.
 */
final class Peers {

	private static final String INTEGRATION_SCHEMA = "org/springframework/integration/jdbc/schema-postgresql.sql";

	/** ShedLock's documented table for PostgreSQL. */
	private static final String SHEDLOCK_TABLE = "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, "
			+ "lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, "
			+ "PRIMARY KEY (name))";

	private final DataSource dataSource;

	private final PlatformTransactionManager transactionManager;

	private final List<DefaultLockRepository> repositories = new ArrayList<>();

	Peers(DataSource dataSource, PlatformTransactionManager transactionManager) {
		this.dataSource = dataSource;
		this.transactionManager = transactionManager;
	}

	/**
	 * Create the peers' tables, dropping them first.
	 */
	void createTables() {
		List<String> statements = new ArrayList<>();
		statements.add("DROP TABLE IF EXISTS INT_LOCK");
		statements.addAll(integrationLockTable());
		statements.add("DROP TABLE IF EXISTS shedlock");
		statements.add(SHEDLOCK_TABLE);
		execute(statements);
	}

	/**
	 * Stop the registries' repositories, leaving the tables.
	 */
	void stopRegistries() {
		this.repositories.forEach(DefaultLockRepository::stop);
	}

	/**
	 * Drop the peers' tables.
	 */
	void dropTables() {
		stopRegistries();
		execute(List.of("DROP TABLE IF EXISTS INT_LOCK", "DROP TABLE IF EXISTS shedlock"));
	}

	/**
	 * Return a lock registry of its own client id, as one application instance has.
	 * @param idleBetweenTries how long a waiter sleeps between tries
	 * @return the registry
	 */
	JdbcLockRegistry lockRegistry(Duration idleBetweenTries) {
		DefaultLockRepository repository = new DefaultLockRepository(this.dataSource, UUID.randomUUID().toString());
		repository.setTransactionManager(this.transactionManager);
		repository.afterPropertiesSet();
		repository.afterSingletonsInstantiated();
		repository.start();
		this.repositories.add(repository);
		JdbcLockRegistry registry = new JdbcLockRegistry(repository);
		registry.setIdleBetweenTries(idleBetweenTries);
		return registry;
	}

	/**
	 * Return ShedLock's JDBC provider, using the database's clock as its documentation
	 * recommends.
	 * @return the provider
	 */
	JdbcTemplateLockProvider shedLock() {
		return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(this.dataSource))
			.usingDbTime()
			.build());
	}

	/**
	 * Take and release a ShedLock lock that nobody else holds.
	 * @param provider the provider
	 * @param name the lock name
	 */
	static void shedLockOnce(JdbcTemplateLockProvider provider, String name) {
		SimpleLock lock = provider
			.lock(new LockConfiguration(Instant.now(), name, Duration.ofSeconds(30), Duration.ZERO))
			.orElseThrow(() -> new IllegalStateException("ShedLock " + name + " is held"));
		lock.unlock();
	}

	private static List<String> integrationLockTable() {
		String script;
		try {
			script = StreamUtils.copyToString(new ClassPathResource(INTEGRATION_SCHEMA).getInputStream(),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read " + INTEGRATION_SCHEMA + " from spring-integration-jdbc",
					ex);
		}
		String withoutComments = script.lines()
			.filter((line) -> !line.strip().startsWith("--"))
			.collect(Collectors.joining("\n"));
		List<String> lockTable = Arrays.stream(withoutComments.split(";"))
			.map(String::strip)
			.filter((statement) -> statement.toUpperCase(Locale.ROOT).contains("INT_LOCK"))
			.toList();
		if (lockTable.isEmpty()) {
			throw new IllegalStateException(INTEGRATION_SCHEMA + " has no INT_LOCK table");
		}
		return lockTable;
	}

	private void execute(List<String> statements) {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not set up the peers' tables", ex);
		}
	}

}
