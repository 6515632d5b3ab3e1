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

package io.github.advisorylock.pglocks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import javax.sql.DataSource;

import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.sql.PgLocksSql;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;

import org.springframework.util.ClassUtils;

/**
 * The {@link LockHolderDiagnosis} that reads {@code pg_locks}: finds out who holds an
 * advisory lock that a call could not acquire, for the message of its
 * {@link LockBusyException}, without ever making the caller wait for a connection.
 *
 * <p>
 * Where it asks depends on the state the failure left the caller's transaction in:
 * <ul>
 * <li>After a {@code TRY} found a lock held, the transaction is healthy, so the diagnosis
 * runs on the caller's own connection: one more round trip, and no other connection at
 * all. Should that query fail (it is bounded by the timeout), PostgreSQL aborts the
 * transaction, which the {@code LockBusyException} already asks the caller to roll
 * back.</li>
 * <li>After a {@code BLOCK} ran out of time (SQLSTATE {@code 55P03}), PostgreSQL has
 * aborted the transaction and its connection can run nothing until the rollback. The
 * diagnosis then opens a short-lived physical connection of its own, <em>outside</em> the
 * application's pool, from the {@link DirectConnections} of the caller's
 * {@code DataSource} (so on the server the lock was asked of, where the application has
 * several; for a routing {@code DataSource}, of the target it routes the caller to): a
 * pool that is exhausted (often the very reason locks time out) is never waited on.
 * Opening it costs a connection handshake on that error path only;
 * {@code DirectConnections} bounds how many are open at once and how long each step may
 * take, and a diagnosis it refuses is skipped rather than queued. Without direct
 * connections (a pool that is not Hikari, or Hikari configured without a JDBC URL),
 * timeouts are not diagnosed, and the message says so.</li>
 * </ul>
 * A savepoint before each acquisition would keep the transaction usable after a timeout,
 * but it would add a subtransaction to every acquisition on the success path; that is not
 * worth a better error message.
 *
 * <p>
 * A diagnosis never hides the original error: if it fails, the exception still carries
 * the namespace, keys and timeout, its message says why the holders are missing, and the
 * failure is {@linkplain Throwable#getSuppressed() suppressed} in it. The sessions
 * reported are those holding a conflicting lock a moment after the failure; by then the
 * holder may have finished, in which case none is reported.
 *
 * <p>
 * After a timeout the caller's own locks are told apart by the backend pid pgjdbc learned
 * at connect time. Behind PgBouncer that pid is PgBouncer's, not the server's, so a call
 * of several keys may list the caller's own earlier keys among the holders; a call of one
 * key, and every {@code TRY}, is not affected.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class PgLocksHolderDiagnosis implements LockHolderDiagnosis {

	/** Most holders reported; more would not make a message clearer. */
	private static final String APPLICATION_NAME = "advisory-lock diagnosis";

	private static final boolean PGJDBC_PRESENT = ClassUtils.isPresent("org.postgresql.PGConnection",
			PgLocksHolderDiagnosis.class.getClassLoader());

	private final Duration timeout;

	/**
	 * The direct connections of the caller's {@code DataSource}, or {@code null} for
	 * none.
	 */
	private final Function<DataSource, @Nullable DirectConnections> directConnections;

	/**
	 * Create a diagnosis that asks the same server after every timeout, whatever the
	 * caller's {@code DataSource}: for tests of one server. Applications share one
	 * {@link DirectConnectionsRegistry}, and with it one bound.
	 * @param timeout the bound on a query on the caller's connection (see
	 * {@link DirectConnections#checkTimeout})
	 * @param directConnections where timeouts are diagnosed, or {@code null} to leave
	 * them undiagnosed
	 */
	PgLocksHolderDiagnosis(Duration timeout, @Nullable DirectConnections directConnections) {
		this(timeout, (dataSource) -> directConnections);
	}

	/**
	 * Create a diagnosis that asks, after a timeout, the server of the caller's
	 * {@code DataSource}, on the direct connections the registry derives from it.
	 * @param directConnections the direct connections of each {@code DataSource}; their
	 * timeout also bounds a query on the caller's connection
	 */
	public PgLocksHolderDiagnosis(DirectConnectionsRegistry directConnections) {
		this(directConnections.getTimeout(), directConnections::forDataSource);
	}

	private PgLocksHolderDiagnosis(Duration timeout,
			Function<DataSource, @Nullable DirectConnections> directConnections) {
		DirectConnections.checkTimeout(timeout, "Lock holder diagnosis timeout");
		this.timeout = timeout;
		this.directConnections = directConnections;
	}

	/**
	 * Create a diagnosis for one {@link DataSource}, diagnosing timeouts on
	 * {@linkplain DirectConnections#of direct connections} of its own when it is a Hikari
	 * pool with a JDBC URL: for tests.
	 * @param dataSource the data source
	 * @param timeout the bound on connecting and on each query
	 * @return the diagnosis
	 */
	static PgLocksHolderDiagnosis forDataSource(DataSource dataSource, Duration timeout) {
		return new PgLocksHolderDiagnosis(timeout, DirectConnections.of(dataSource, timeout));
	}

	/**
	 * Return the bound on a query on the caller's connection.
	 * @return the timeout
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	@Override
	public Diagnosis onConnection(Connection connection, List<Long> keys, LockMode mode) {
		try {
			return Diagnosis.of(query(connection, keys, null, mode, DirectConnections.seconds(this.timeout)));
		}
		catch (SQLException | RuntimeException ex) {
			return Diagnosis.notDiagnosed("the query failed (" + ex + ")", ex);
		}
	}

	@Override
	public Diagnosis afterTimeout(DataSource dataSource, Connection caller, List<Long> keys, LockMode mode) {
		DirectConnections direct = this.directConnections.apply(dataSource);
		if (direct == null) {
			return Diagnosis.notDiagnosed("the transaction was aborted by the timeout, and no connection outside the "
					+ "pool is configured to ask PostgreSQL (see PgLocksHolderDiagnosis)", null);
		}
		Integer callerPid = backendPid(caller);
		if (callerPid == null) {
			return Diagnosis.notDiagnosed("the caller's backend pid is unknown (not a pgjdbc connection)", null);
		}
		try {
			return Diagnosis.of(direct.read(APPLICATION_NAME,
					(connection) -> query(connection, keys, callerPid, mode, direct.queryTimeoutSeconds())));
		}
		catch (SQLTransientConnectionException ex) {
			return Diagnosis.notDiagnosed("skipped: " + ex.getMessage(), null);
		}
		catch (SQLException | RuntimeException ex) {
			return Diagnosis.notDiagnosed("the query failed (" + ex + ")", ex);
		}
	}

	private static List<LockHolderInfo> query(Connection connection, List<Long> keys, @Nullable Integer callerPid,
			LockMode mode, int timeoutSeconds) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(PgLocksSql.HOLDERS)) {
			statement.setQueryTimeout(timeoutSeconds);
			statement.setArray(1, connection.createArrayOf("bigint", keys.toArray()));
			statement.setObject(2, callerPid, Types.INTEGER);
			statement.setBoolean(3, mode == LockMode.SHARED);
			statement.setInt(4, PgLocksSql.MAX_HOLDERS);
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
	 * Reads pgjdbc's local state; a separate class, so pgjdbc is loaded only when
	 * present.
	 */
	private static final class Pgjdbc {

		static @Nullable Integer backendPid(Connection connection) {
			try {
				// Local state of the driver: no round trip, so it works on an aborted
				// transaction.
				return connection.isWrapperFor(PGConnection.class)
						? connection.unwrap(PGConnection.class).getBackendPID() : null;
			}
			catch (SQLException ex) {
				return null;
			}
		}

	}

}
