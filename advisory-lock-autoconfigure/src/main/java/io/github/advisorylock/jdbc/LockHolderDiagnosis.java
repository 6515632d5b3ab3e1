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
import java.util.concurrent.Semaphore;

import javax.sql.DataSource;

import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockMode;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;

import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Finds out who holds an advisory lock that a call could not acquire, for the message of its
 * {@link LockBusyException}, without ever making the caller wait for a connection.
 *
 * <p>Where it asks depends on the state the failure left the caller's transaction in:
 * <ul>
 * <li>After a {@code TRY} found a lock held, the transaction is healthy, so the diagnosis runs on the caller's own
 * connection: one more round trip, and no other connection at all. Should that query fail (it is bounded by the
 * {@linkplain #getTimeout() timeout}), PostgreSQL aborts the transaction, which the {@code LockBusyException} already
 * asks the caller to roll back.</li>
 * <li>After a {@code BLOCK} ran out of time (SQLSTATE {@code 55P03}), PostgreSQL has aborted the transaction and its
 * connection can run nothing until the rollback. The diagnosis then opens a short-lived physical connection of its
 * own, <em>outside</em> the application's pool, from the {@linkplain #setDirectConnections direct connection source}:
 * a pool that is exhausted (often the very reason locks time out) is never waited on. Opening it costs a connection
 * handshake on that error path only; at most two such diagnoses run at once, and further ones are skipped rather than
 * queued, so a storm of timeouts cannot open a storm of connections. The connect and the query are each bounded by
 * the timeout, and so is every read on its socket: connect, login and socket timeouts in the pool's JDBC URL are
 * replaced, since pgjdbc would otherwise let them win over these bounds. Without a direct connection source (a pool
 * that is not Hikari, or Hikari configured without a JDBC URL), timeouts are not diagnosed, and the message says
 * so.</li>
 * </ul>
 * A savepoint before each acquisition would keep the transaction usable after a timeout, but it would add a
 * subtransaction to every acquisition on the success path; that is not worth a better error message.
 *
 * <p>A diagnosis never hides the original error: if it fails, the exception still carries the namespace, keys and
 * timeout, its message says why the holders are missing, and the failure is {@linkplain Throwable#getSuppressed()
 * suppressed} in it. The sessions reported are those holding a conflicting lock a moment after the failure; by then
 * the holder may have finished, in which case none is reported.
 *
 * <p>After a timeout the caller's own locks are told apart by the backend pid pgjdbc learned at connect time. Behind
 * PgBouncer that pid is PgBouncer's, not the server's, so a call of several keys may list the caller's own earlier
 * keys among the holders; a call of one key, and every {@code TRY}, is not affected.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class LockHolderDiagnosis {

	/** The default bound on each step of a diagnosis. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);

	/** Most holders reported; more would not make a message clearer. */
	private static final int MAX_HOLDERS = 5;

	/** The shortest timeout: JDBC bounds a query in whole seconds. */
	public static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);

	private static final boolean PGJDBC_PRESENT = ClassUtils.isPresent("org.postgresql.PGConnection",
			LockHolderDiagnosis.class.getClassLoader());

	/** Most diagnoses on direct connections at once; further ones are skipped rather than queued. */
	private final Semaphore direct = new Semaphore(DirectConnections.MAX_CONCURRENT);

	private final Duration timeout;

	private @Nullable DataSource directConnections;

	/**
	 * Create a diagnosis that queries on the caller's connection after a {@code TRY} and does not diagnose timeouts
	 * until {@linkplain #setDirectConnections a direct connection source} is set.
	 * @param timeout the bound on connecting and on the query, at least one second (JDBC bounds in whole seconds)
	 */
	public LockHolderDiagnosis(Duration timeout) {
		Assert.isTrue(isValidTimeout(timeout), () -> "Lock holder diagnosis timeout must be at least "
				+ MIN_TIMEOUT.toSeconds() + "s (JDBC bounds a query in whole seconds), was " + timeout);
		this.timeout = timeout;
	}

	/**
	 * Return whether a timeout can bound a diagnosis: at least {@link #MIN_TIMEOUT}.
	 * @param timeout the timeout
	 * @return whether it is valid
	 */
	public static boolean isValidTimeout(Duration timeout) {
		return timeout.compareTo(MIN_TIMEOUT) >= 0;
	}

	/**
	 * Create a diagnosis for the application's {@link DataSource}: when it is a Hikari pool configured with a JDBC URL,
	 * timeouts are diagnosed on direct connections made with the pool's URL, user, password and data source
	 * properties, bypassing the pool; the URL's {@code connectTimeout}, {@code loginTimeout}, {@code socketTimeout}
	 * and {@code ApplicationName} are replaced by the bounds of this diagnosis.
	 * @param dataSource the application's data source
	 * @param timeout the bound on connecting and on the query, at least one second
	 * @return the diagnosis
	 */
	public static LockHolderDiagnosis forDataSource(DataSource dataSource, Duration timeout) {
		LockHolderDiagnosis diagnosis = new LockHolderDiagnosis(timeout);
		diagnosis.setDirectConnections(DirectConnections.of(dataSource, timeout, "advisory-lock diagnosis"));
		return diagnosis;
	}

	/**
	 * Set where timeouts are diagnosed: a source of new physical connections that never waits for a pool (each is
	 * closed after one query). {@code null} leaves timeouts undiagnosed.
	 * @param directConnections the connection source, or {@code null}
	 */
	public void setDirectConnections(@Nullable DataSource directConnections) {
		this.directConnections = directConnections;
	}

	/**
	 * Return the bound on connecting and on the query.
	 * @return the timeout
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Diagnose a lock found held on a connection that can still run a query: the caller's, after a {@code TRY}, or an
	 * invocation-scoped lock's, after its transaction was rolled back.
	 * @param connection the connection
	 * @param keys the keys found held, or those waited for
	 * @param mode the mode requested
	 * @return the outcome
	 */
	Result onConnection(Connection connection, List<Long> keys, LockMode mode) {
		try {
			return new Result(query(connection, keys, null, mode), null, null);
		}
		catch (SQLException | RuntimeException ex) {
			return new Result(null, "the query failed (" + ex + ")", ex);
		}
	}

	/**
	 * Diagnose a {@code BLOCK} that ran out of time, on a direct connection: the caller's transaction is aborted.
	 * @param caller the caller's connection, to exclude its own locks
	 * @param keys the keys the call was waiting for: the one found held and those after it
	 * @param mode the mode requested
	 * @return the outcome
	 */
	Result afterTimeout(Connection caller, List<Long> keys, LockMode mode) {
		DataSource source = this.directConnections;
		if (source == null) {
			return new Result(null, "the transaction was aborted by the timeout, and no connection outside the pool "
					+ "is configured to ask PostgreSQL (see LockHolderDiagnosis)", null);
		}
		Integer callerPid = backendPid(caller);
		if (callerPid == null) {
			return new Result(null, "the caller's backend pid is unknown (not a pgjdbc connection)", null);
		}
		if (!this.direct.tryAcquire()) {
			return new Result(null, "skipped, " + DirectConnections.MAX_CONCURRENT + " diagnoses are already running", null);
		}
		try (Connection connection = source.getConnection()) {
			return new Result(query(connection, keys, callerPid, mode), null, null);
		}
		catch (SQLException | RuntimeException ex) {
			return new Result(null, "the query failed (" + ex + ")", ex);
		}
		finally {
			this.direct.release();
		}
	}

	private List<LockHolderInfo> query(Connection connection, List<Long> keys, @Nullable Integer callerPid,
			LockMode mode) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(AdvisoryLockStatements.holders())) {
			statement.setQueryTimeout(DirectConnections.seconds(this.timeout));
			statement.setArray(1, connection.createArrayOf("bigint", keys.toArray()));
			statement.setObject(2, callerPid, java.sql.Types.INTEGER);
			statement.setBoolean(3, mode == LockMode.SHARED);
			statement.setInt(4, MAX_HOLDERS);
			try (ResultSet result = statement.executeQuery()) {
				List<LockHolderInfo> holders = new ArrayList<>();
				while (result.next()) {
					long age = result.getLong("transaction_age_ms");
					Duration transactionAge = result.wasNull() ? null : Duration.ofMillis(age);
					holders.add(new LockHolderInfo(result.getInt("pid"), result.getLong("key"),
							result.getString("mode"), result.getString("application_name"), result.getString("state"),
							transactionAge, result.getString("wait_event_type"), result.getString("wait_event")));
				}
				return holders;
			}
		}
	}

	private static @Nullable Integer backendPid(Connection connection) {
		if (!PGJDBC_PRESENT) {
			return null;
		}
		return Pgjdbc.backendPid(connection);
	}

	/**
	 * What a diagnosis found.
	 *
	 * @param holders the holders, or {@code null} if they were not diagnosed
	 * @param notDiagnosed why not, or {@code null}
	 * @param failure the exception of a failed diagnosis, or {@code null}
	 */
	record Result(@Nullable List<LockHolderInfo> holders, @Nullable String notDiagnosed,
			@Nullable Exception failure) {

	}

	/**
	 * Reads pgjdbc's local state; a separate class, so pgjdbc is loaded only when present.
	 */
	private static final class Pgjdbc {

		static @Nullable Integer backendPid(Connection connection) {
			try {
				// Local state of the driver: no round trip, so it works on an aborted transaction.
				return connection.isWrapperFor(PGConnection.class)
						? connection.unwrap(PGConnection.class).getBackendPID() : null;
			}
			catch (SQLException ex) {
				return null;
			}
		}

	}

}
