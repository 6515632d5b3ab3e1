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
 * After a {@code TRY} miss the transaction is healthy, so it asks on the caller's own
 * connection; a failure of that query aborts the transaction, which the exception already
 * asks the caller to roll back. After a {@code BLOCK} timeout PostgreSQL has aborted the
 * transaction, so it asks on the {@link DirectConnections} of the caller's
 * {@code DataSource}, outside a pool that is often why locks time out; without them,
 * timeouts are not diagnosed. A savepoint per acquisition would keep the connection
 * usable, but costs a subtransaction on every successful call.
 *
 * <p>
 * A failed diagnosis never hides the error: the message says why the holders are missing
 * and the failure is {@linkplain Throwable#getSuppressed() suppressed} in it. Holders are
 * read a moment after the failure, so one that has finished is not reported. The caller's
 * own locks are told apart by pgjdbc's backend pid, which behind PgBouncer is
 * PgBouncer's: a timed-out call of several keys may list its own earlier keys
 * (docs/observability.md, "What each part does, and what it costs").
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class PgLocksHolderDiagnosis implements LockHolderDiagnosis {

	private static final String APPLICATION_NAME = "advisory-lock diagnosis";

	private static final boolean PGJDBC_PRESENT = ClassUtils.isPresent("org.postgresql.PGConnection",
			PgLocksHolderDiagnosis.class.getClassLoader());

	private final Duration timeout;

	/** The direct connections of the caller's {@code DataSource}, or {@code null}. */
	private final Function<DataSource, @Nullable DirectConnections> directConnections;

	/**
	 * For tests of one server: asks the same direct connections after every timeout
	 * ({@code null} to leave timeouts undiagnosed).
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

	/** For tests: a diagnosis of one {@link DataSource}, with direct connections. */
	static PgLocksHolderDiagnosis forDataSource(DataSource dataSource, Duration timeout) {
		return new PgLocksHolderDiagnosis(timeout, DirectConnections.of(dataSource, timeout));
	}

	/** Return the bound on a query on the caller's connection. */
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

	/** A class of its own, so that pgjdbc is loaded only when present. */
	private static final class Pgjdbc {

		static @Nullable Integer backendPid(Connection connection) {
			try {
				// Driver state, no round trip: works on an aborted transaction.
				return connection.isWrapperFor(PGConnection.class)
						? connection.unwrap(PGConnection.class).getBackendPID() : null;
			}
			catch (SQLException ex) {
				return null;
			}
		}

	}

}
