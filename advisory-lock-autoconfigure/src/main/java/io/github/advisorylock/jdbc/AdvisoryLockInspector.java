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
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.util.Assert;

/**
 * Reads every advisory lock of the current database from {@code pg_locks}, held and awaited, with what its session is
 * doing from {@code pg_stat_activity}: the data behind the {@code advisorylocks} Actuator endpoint.
 *
 * <p>It covers every advisory lock, not only this library's: session-level ones and the two-int form too.
 *
 * <p>An operator needs this read most when locks pile up, which is when the application's pool is exhausted. Made
 * {@linkplain #forDataSource for a Hikari pool}, it therefore reads on a short-lived physical connection outside the
 * pool, the same kind {@link LockHolderDiagnosis} uses: connecting and the query are bounded by a timeout, at most two
 * reads run at once, and a third is refused rather than queued. For any other data source there is no such
 * connection, and each read borrows one from the pool (and may wait as long as the pool makes it).
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockInspector {

	/** Most locks one read returns; a larger lock table is cut, and says so. */
	public static final int MAX_LOCKS = 1000;

	private static final String TASK = "Read advisory locks from pg_locks";

	private final DataSource dataSource;

	private final boolean includeQuery;

	private final @Nullable Duration timeout;

	private final Semaphore reads = new Semaphore(DirectConnections.MAX_CONCURRENT);

	private final SQLExceptionTranslator exceptionTranslator = SqlExceptions.postgresTranslator();

	/**
	 * Create an inspector that reads on connections of the given data source, without a bound of its own.
	 * @param dataSource where to read from (one connection per read)
	 * @param includeQuery whether to read each session's query text, which may hold personal data
	 */
	public AdvisoryLockInspector(DataSource dataSource, boolean includeQuery) {
		this(dataSource, includeQuery, null);
	}

	/**
	 * Create an inspector.
	 * @param dataSource where to read from
	 * @param includeQuery whether to read query text
	 * @param timeout the query bound for direct connections, which also limits concurrent reads; {@code null} for a
	 * pool, which bounds itself
	 */
	AdvisoryLockInspector(DataSource dataSource, boolean includeQuery, @Nullable Duration timeout) {
		Assert.notNull(dataSource, "DataSource must not be null");
		this.dataSource = dataSource;
		this.includeQuery = includeQuery;
		this.timeout = timeout;
	}

	/**
	 * Create an inspector for the application's {@link DataSource}: when it is a Hikari pool configured with a JDBC
	 * URL, each read opens a direct connection with the pool's URL, user, password and data source properties,
	 * bypassing the pool, its connect and query bounded by {@code timeout}; otherwise each read borrows a connection
	 * from the data source itself.
	 * @param dataSource the application's data source
	 * @param timeout the bound on connecting and on the query, at least one second
	 * @param includeQuery whether to read each session's query text, which may hold personal data
	 * @return the inspector
	 */
	public static AdvisoryLockInspector forDataSource(DataSource dataSource, Duration timeout, boolean includeQuery) {
		Assert.isTrue(LockHolderDiagnosis.isValidTimeout(timeout), () -> "Advisory lock inspector timeout must be at "
				+ "least " + LockHolderDiagnosis.MIN_TIMEOUT.toSeconds() + "s, was " + timeout);
		DataSource direct = DirectConnections.of(dataSource, timeout, "advisory-lock endpoint");
		return (direct != null) ? new AdvisoryLockInspector(direct, includeQuery, timeout)
				: new AdvisoryLockInspector(dataSource, includeQuery);
	}

	/**
	 * Read the advisory locks of the current database, grouped by key, holders before waiters.
	 * @return the locks, at most {@link #MAX_LOCKS}, and whether there were more
	 */
	public Snapshot locks() {
		String sql = AdvisoryLockStatements.allLocks();
		if (this.timeout == null) {
			return read(sql);
		}
		if (!this.reads.tryAcquire()) {
			throw new TransientDataAccessResourceException(TASK + ": " + DirectConnections.MAX_CONCURRENT
					+ " reads are already running on connections outside the pool; try again when they end");
		}
		try {
			return read(sql);
		}
		finally {
			this.reads.release();
		}
	}

	private Snapshot read(String sql) {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			if (this.timeout != null) {
				statement.setQueryTimeout(DirectConnections.seconds(this.timeout));
			}
			statement.setBoolean(1, this.includeQuery);
			// One more than shown, to tell a full table from a cut one.
			statement.setInt(2, MAX_LOCKS + 1);
			try (ResultSet result = statement.executeQuery()) {
				List<LockActivity> locks = new ArrayList<>();
				while (result.next()) {
					if (locks.size() == MAX_LOCKS) {
						return new Snapshot(locks, true);
					}
					locks.add(row(result));
				}
				return new Snapshot(locks, false);
			}
		}
		catch (SQLException ex) {
			throw SqlExceptions.translate(this.exceptionTranslator, TASK, sql, ex);
		}
	}

	private static LockActivity row(ResultSet result) throws SQLException {
		int objsubid = result.getInt("objsubid");
		Long key = null;
		List<Integer> keyPair = null;
		if (objsubid == 1) {
			key = result.getLong("key");
		}
		else {
			// Two-int form: each int was stored in an (unsigned) oid, so narrowing gives back its sign.
			keyPair = List.of((int) result.getLong("classid"), (int) result.getLong("objid"));
		}
		Timestamp waitStart = result.getTimestamp("waitstart");
		long age = result.getLong("transaction_age_ms");
		Duration transactionAge = result.wasNull() ? null : Duration.ofMillis(age);
		return new LockActivity(result.getInt("pid"), key, keyPair, result.getString("mode"),
				result.getBoolean("granted"), (waitStart != null) ? waitStart.toInstant() : null, transactionAge,
				result.getString("state"), result.getString("application_name"), result.getString("wait_event_type"),
				result.getString("wait_event"), result.getString("query"));
	}

	/**
	 * The advisory locks of the current database at one moment.
	 *
	 * @param locks the locks, grouped by key, holders before waiters
	 * @param truncated whether there were more than {@link #MAX_LOCKS}, and the rest is left out
	 */
	public record Snapshot(List<LockActivity> locks, boolean truncated) {

	}

	/**
	 * One advisory lock held or awaited by one session.
	 *
	 * @param pid the backend process id of the session
	 * @param key the 64-bit key, for a lock taken with one {@code bigint}; otherwise {@code null}
	 * @param keyPair the two keys, for a lock taken with two {@code int}s; otherwise {@code null}
	 * @param mode {@code ExclusiveLock} or {@code ShareLock}
	 * @param granted whether it is held ({@code true}) or awaited
	 * @param waitStart since when the session waits for it, or {@code null} when held (or before PostgreSQL 14)
	 * @param transactionAge how long the session's transaction has been open, or {@code null}
	 * @param state the session's state, or {@code null} when hidden from this role
	 * @param applicationName the session's {@code application_name}, or {@code null}
	 * @param waitEventType the type of event the session waits for, or {@code null}
	 * @param waitEvent the event the session waits for, or {@code null}
	 * @param query the session's current or last query, or {@code null} unless asked for
	 */
	public record LockActivity(int pid, @Nullable Long key, @Nullable List<Integer> keyPair, String mode,
			boolean granted, @Nullable Instant waitStart, @Nullable Duration transactionAge, @Nullable String state,
			@Nullable String applicationName, @Nullable String waitEventType, @Nullable String waitEvent,
			@Nullable String query) {

	}

}
