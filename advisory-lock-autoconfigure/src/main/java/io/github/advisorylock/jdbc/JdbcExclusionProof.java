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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.sql.DataSource;

import io.github.advisorylock.core.ExclusionProof;
import io.github.advisorylock.core.sql.LockSql;
import org.jspecify.annotations.Nullable;

/**
 * The startup check on JDBC: a first connection of a data source takes a random key, and
 * a second one, of the same source or the configured invocation-scoped one, must be
 * refused it; both transactions then roll back. What the answers mean is
 * {@link ExclusionProof}'s. Each connection and each statement is bounded by what is left
 * of the timeout: a connection that comes later is closed when it comes, and a statement
 * that does not answer is cut by the network timeout, so the check never holds a pool's
 * connection beyond it. A connection still being made at the bound goes on in a daemon
 * thread until the data source gives up (a Hikari pool: its {@code connectionTimeout}),
 * and is closed if it comes. Cost: two connections and four round trips (the tries, and
 * their rollbacks).
 *
 * @author advisory-lock authors
 */
final class JdbcExclusionProof {

	private JdbcExclusionProof() {
	}

	/**
	 * Check each distinct data source against itself, and a configured invocation-scoped
	 * source against the default data source, whose locks its fenced writes meet.
	 * @param invocationDataSource the configured invocation-scoped source, or
	 * {@code null}
	 */
	static List<ExclusionProof> check(JdbcDataSources dataSources, @Nullable DataSource invocationDataSource,
			Duration timeout) {
		List<ExclusionProof> proofs = new ArrayList<>();
		List<DataSource> checked = new ArrayList<>();
		for (Map.Entry<String, DataSource> entry : dataSources.byName().entrySet()) {
			DataSource dataSource = entry.getValue();
			if (checked.stream().noneMatch((seen) -> JdbcDataSourceUnwrapping.sameDataSource(seen, dataSource))) {
				checked.add(dataSource);
				proofs.add(prove("DataSource '" + entry.getKey() + "'", dataSource, dataSource, timeout));
			}
		}
		String defaultName = dataSources.defaultName();
		if (invocationDataSource != null && defaultName != null) {
			proofs.add(prove("the @InvocationLockDataSource against DataSource '" + defaultName + "'",
					dataSources.byName().get(defaultName), invocationDataSource, timeout));
		}
		return proofs;
	}

	/**
	 * Take a random key on a connection of the first source, and try it on one of the
	 * second.
	 * @param source the sources, as a message names them
	 */
	static ExclusionProof prove(String source, DataSource first, DataSource second, Duration timeout) {
		long start = System.nanoTime();
		long deadline = start + timeout.toNanos();
		ExecutorService connecting = Executors.newCachedThreadPool((task) -> {
			Thread thread = new Thread(task, "advisory-lock-startup-check");
			thread.setDaemon(true);
			return thread;
		});
		try (Session firstSession = Session.open(first, deadline, connecting, ExclusionProof.noConnection(timeout))) {
			String product = firstSession.connection.getMetaData().getDatabaseProductName();
			if (!"PostgreSQL".equals(product)) {
				return ExclusionProof.notPostgresql(source, product);
			}
			long key = ThreadLocalRandom.current().nextLong();
			ExclusionProof early = ExclusionProof.firstTry(source, key, firstSession.tryKey(key, deadline),
					elapsed(start));
			if (early != null) {
				return early;
			}
			try (Session secondSession = Session.open(second, deadline, connecting,
					ExclusionProof.noSecondConnection(timeout))) {
				return ExclusionProof.secondTry(source, key, secondSession.tryKey(key, deadline), elapsed(start));
			}
		}
		catch (NoConnection ex) {
			return ExclusionProof.unproven(source, ex.getMessage(), elapsed(start));
		}
		catch (SQLException ex) {
			if (System.nanoTime() - deadline >= 0) {
				return ExclusionProof.unproven(source, ExclusionProof.noAnswer(timeout), elapsed(start));
			}
			return ExclusionProof.failed(source, ex.getSQLState(), ex.getMessage(), elapsed(start));
		}
		finally {
			connecting.shutdown();
		}
	}

	private static Duration elapsed(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

	/**
	 * What is left of the timeout, rounded up: a bound that fires is past the deadline.
	 */
	private static long remainingMillis(long deadline) {
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime() + 999_999));
	}

	/** A connection of the check, in a transaction it rolls back when closed. */
	private static final class Session implements AutoCloseable {

		private final Connection connection;

		private final ExecutorService executor;

		private final boolean autoCommit;

		private final int networkTimeout;

		private Session(Connection connection, ExecutorService executor) throws SQLException {
			this.connection = connection;
			this.executor = executor;
			this.autoCommit = connection.getAutoCommit();
			this.networkTimeout = connection.getNetworkTimeout();
		}

		/**
		 * Get a connection within what is left of the timeout.
		 * @param missing what the check says when none came in time
		 */
		static Session open(DataSource dataSource, long deadline, ExecutorService executor, String missing)
				throws SQLException, NoConnection {
			CompletableFuture<Connection> connecting = CompletableFuture.supplyAsync(() -> {
				try {
					return dataSource.getConnection();
				}
				catch (SQLException ex) {
					throw new SqlFailure(ex);
				}
			}, executor);
			Connection connection;
			try {
				connection = connecting.get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException ex) {
				// Closed when it comes: nobody else will.
				connecting.thenAccept(Session::closeQuietly);
				throw new NoConnection(missing);
			}
			catch (ExecutionException ex) {
				if (ex.getCause() instanceof SqlFailure failure) {
					throw failure.getCause();
				}
				throw new NoConnection("no connection: " + ex.getCause());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				connecting.thenAccept(Session::closeQuietly);
				throw new NoConnection("interrupted while waiting for a connection");
			}
			try {
				return new Session(connection, executor);
			}
			catch (SQLException ex) {
				closeQuietly(connection);
				throw ex;
			}
		}

		ExclusionProof.Answer tryKey(long key, long deadline) throws SQLException {
			this.connection.setAutoCommit(false);
			this.connection.setNetworkTimeout(this.executor,
					(int) Math.min(Integer.MAX_VALUE, remainingMillis(deadline)));
			try (PreparedStatement statement = this.connection.prepareStatement(LockSql.EXCLUSION_CHECK)) {
				statement.setLong(1, key);
				try (ResultSet result = statement.executeQuery()) {
					result.next();
					return new ExclusionProof.Answer(result.getBoolean(1), result.getBoolean(2));
				}
			}
		}

		@Override
		public void close() {
			try {
				if (!this.connection.getAutoCommit()) {
					this.connection.rollback();
					this.connection.setAutoCommit(this.autoCommit);
				}
				this.connection.setNetworkTimeout(this.executor, this.networkTimeout);
			}
			catch (SQLException ex) {
				// A connection cut by the network timeout: closing it discards it.
			}
			closeQuietly(this.connection);
		}

		private static void closeQuietly(Connection connection) {
			try {
				connection.close();
			}
			catch (SQLException ex) {
				// Nothing held on it survives its close.
			}
		}

	}

	/** A connection that did not come, in time or at all. */
	private static final class NoConnection extends Exception {

		NoConnection(String message) {
			super(message, null, false, false);
		}

	}

	/** A connection's failure, carried out of the task that got it. */
	private static final class SqlFailure extends RuntimeException {

		SqlFailure(SQLException cause) {
			super(cause);
		}

		@Override
		public synchronized SQLException getCause() {
			return (SQLException) super.getCause();
		}

	}

}
