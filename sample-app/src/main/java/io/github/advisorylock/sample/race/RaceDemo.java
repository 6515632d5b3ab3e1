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
package io.github.advisorylock.sample.race;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.sample.race.RaceAttempts.LimitReachedException;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.stereotype.Component;

/**
 * Runs the race demo: for each variant, a new user and {@code race-demo.attempts}
 * concurrent attempts released at once by a barrier, each on its own connection; then
 * counts what became of them.
 */
@Component
public class RaceDemo {

	/** Only catches a hang: every attempt ends within its think time plus its waits. */
	private static final long HANG_SECONDS = 120;

	private static final String SUCCESS = "success";

	private static final String REJECTION = "rejection";

	private final RaceAttempts attempts;

	private final RaceDemoProperties properties;

	private final DataSource dataSource;

	private final JdbcClient jdbc;

	RaceDemo(RaceAttempts attempts, RaceDemoProperties properties, DataSource dataSource, JdbcClient jdbc) {
		this.attempts = attempts;
		this.properties = properties;
		this.dataSource = dataSource;
		this.jdbc = jdbc;
	}

	/**
	 * Run every variant, in the order of {@link RaceVariant}.
	 * @return what each came to
	 */
	public List<RaceResult> runAll() {
		List<RaceResult> results = new ArrayList<>();
		for (RaceVariant variant : RaceVariant.values()) {
			results.add(run(variant));
		}
		return results;
	}

	/**
	 * Run one variant: its attempts race for a new user.
	 * @param variant the variant
	 * @return what its attempts came to
	 */
	public RaceResult run(RaceVariant variant) {
		prepare();
		int count = this.properties.attempts();
		UUID userId = UUID.randomUUID();
		CyclicBarrier start = new CyclicBarrier(count);
		ExecutorService executor = Executors.newFixedThreadPool(count);
		try {
			List<Future<String>> outcomes = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				outcomes.add(executor.submit(() -> {
					start.await(HANG_SECONDS, TimeUnit.SECONDS);
					return attempt(variant, userId);
				}));
			}
			int successes = 0;
			int rejections = 0;
			Map<String, Integer> errors = new TreeMap<>();
			for (Future<String> outcome : outcomes) {
				String result = result(outcome);
				if (result.equals(SUCCESS)) {
					successes++;
				}
				else if (result.equals(REJECTION)) {
					rejections++;
				}
				else {
					errors.merge(result, 1, Integer::sum);
				}
			}
			long pending = this.jdbc
				.sql("SELECT count(*) FROM " + variant.table() + " WHERE user_id = ? AND status = 'pending'")
				.param(userId)
				.query(Long.class)
				.single();
			return new RaceResult(variant, successes, rejections, errors, pending);
		}
		finally {
			executor.shutdownNow();
		}
	}

	private String attempt(RaceVariant variant, UUID userId) {
		try {
			switch (variant) {
				case PLAIN -> this.attempts.plain(userId);
				case FOR_UPDATE -> this.attempts.forUpdate(userId);
				case UNIQUE_INDEX -> this.attempts.uniqueIndex(userId);
				case ADVISORY_LOCK -> this.attempts.advisoryLock(userId);
				case SERIALIZABLE -> this.attempts.serializable(userId);
			}
			return SUCCESS;
		}
		catch (LimitReachedException ex) {
			return REJECTION;
		}
		catch (RuntimeException ex) {
			return kind(ex);
		}
	}

	private static String result(Future<String> outcome) {
		try {
			return outcome.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the race", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("A race attempt did not finish", ex);
		}
	}

	/** Names an error by its SQLSTATE, which is what the variants differ in. */
	private static String kind(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && sql.getSQLState() != null) {
				return switch (sql.getSQLState()) {
					case "23505" -> "unique violation";
					case "40001" -> "serialization failure";
					case "40P01" -> "deadlock";
					case "55P03" -> "lock busy";
					default -> "SQLSTATE " + sql.getSQLState();
				};
			}
		}
		return ex.getClass().getSimpleName();
	}

	/**
	 * Create the demo's tables, and check that every attempt can have its own connection
	 * at once (otherwise the pool would queue them, and the demo would show the pool
	 * rather than the race).
	 */
	private void prepare() {
		new ResourceDatabasePopulator(new ClassPathResource("race-demo-schema.sql")).execute(this.dataSource);
		int attempts = this.properties.attempts();
		if (this.dataSource instanceof HikariDataSource hikari && hikari.getMaximumPoolSize() < attempts) {
			throw new IllegalStateException("race-demo.attempts=" + attempts + " needs as many connections: set "
					+ "spring.datasource.hikari.maximum-pool-size to at least " + attempts + " (it is "
					+ hikari.getMaximumPoolSize() + ")");
		}
		// Open them all now, so that no attempt pays for a new connection during the
		// race.
		List<Connection> connections = new ArrayList<>();
		try {
			for (int i = 0; i < attempts; i++) {
				connections.add(this.dataSource.getConnection());
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not open " + attempts + " connections for the race", ex);
		}
		finally {
			connections.forEach(RaceDemo::close);
		}
	}

	private static void close(Connection connection) {
		try {
			connection.close();
		}
		catch (SQLException ex) {
			// The pool evicts a connection that fails to close; the next ones must still
			// be returned.
		}
	}

	/**
	 * Format results as a table for a terminal.
	 * @param results the results, one row each
	 * @return the table, one line per result after a header
	 */
	public static String table(List<RaceResult> results) {
		String format = "%-38s %9s %10s  %-26s %12s  %s%n";
		StringBuilder table = new StringBuilder(
				String.format(format, "variant", "successes", "rejections", "errors", "pending rows", "rule"));
		for (RaceResult result : results) {
			String errors = result.errors().isEmpty() ? "0"
					: String.join(", ",
							result.errors()
								.entrySet()
								.stream()
								.map((entry) -> entry.getValue() + " " + entry.getKey())
								.toList());
			table.append(String.format(format, result.variant().label(), result.successes(), result.rejections(),
					errors, result.pendingRows(), result.ruleHeld() ? "held" : "BROKEN"));
		}
		return table.toString();
	}

}
