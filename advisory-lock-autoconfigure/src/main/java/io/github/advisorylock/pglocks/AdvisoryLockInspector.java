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
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.sql.DataSource;

import io.github.advisorylock.core.sql.PgLocksSql;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.util.Assert;

/**
 * Reads every advisory lock of the current database from {@code pg_locks}, held and
 * awaited, with what its session is doing from {@code pg_stat_activity}: the data behind
 * the {@code advisorylocks} Actuator endpoint. It covers every advisory lock, not only
 * this library's.
 *
 * <p>
 * Made {@linkplain #forDataSource for a Hikari pool}, it reads on
 * {@link DirectConnections} outside the pool, since an operator needs it most when the
 * pool is exhausted; a read that finds none free in time fails with a
 * {@link TransientDataAccessResourceException}. Other data sources lend a pooled
 * connection. For an {@link AbstractRoutingDataSource} it reads every resolved target in
 * turn, never the router (whose answer depends on the reading thread's lookup key), and
 * answers a target that cannot be read with the reason, beside the others.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockInspector {

	/** Most locks one read returns; a larger lock table is cut, and says so. */
	public static final int MAX_LOCKS = 1000;

	/** Names a routing data source's default target when it is none of its targets. */
	public static final String DEFAULT_TARGET = "(default)";

	private static final String TASK = "Read advisory locks from pg_locks";

	private static final String APPLICATION_NAME = "advisory-lock endpoint";

	private final @Nullable DataSource dataSource;

	private final @Nullable DirectConnections directConnections;

	/** The registry of a routing data source's targets; {@code null} otherwise. */
	private final @Nullable DirectConnectionsRegistry registry;

	private final boolean includeQuery;

	private final SQLExceptionTranslator exceptionTranslator = new SQLErrorCodeSQLExceptionTranslator("PostgreSQL");

	/**
	 * Create an inspector that reads on connections of the given data source.
	 * @param dataSource where to read from (one connection per read)
	 * @param includeQuery whether to read each session's query text, which may hold
	 * personal data
	 */
	public AdvisoryLockInspector(DataSource dataSource, boolean includeQuery) {
		Assert.notNull(dataSource, "DataSource must not be null");
		this.dataSource = dataSource;
		this.directConnections = null;
		this.registry = null;
		this.includeQuery = includeQuery;
	}

	/**
	 * Create an inspector that reads on direct connections, outside the pool.
	 * @param directConnections where to read from, with their bounds
	 * @param includeQuery whether to read each session's query text, which may hold
	 * personal data
	 */
	public AdvisoryLockInspector(DirectConnections directConnections, boolean includeQuery) {
		Assert.notNull(directConnections, "DirectConnections must not be null");
		this.dataSource = null;
		this.directConnections = directConnections;
		this.registry = null;
		this.includeQuery = includeQuery;
	}

	private AdvisoryLockInspector(AbstractRoutingDataSource router, DirectConnectionsRegistry registry,
			boolean includeQuery) {
		this.dataSource = router;
		this.directConnections = null;
		this.registry = registry;
		this.includeQuery = includeQuery;
	}

	/**
	 * Create an inspector for one of the application's {@link DataSource}s: on its direct
	 * connections from the registry (shared with the diagnosis, so one bound serves both)
	 * where it has them, otherwise on its own connections. For an
	 * {@link AbstractRoutingDataSource}, each read reads every target resolved by then
	 * and answers them {@linkplain Snapshot#targets() by lookup key}.
	 * @param dataSource the data source
	 * @param directConnections the registry of direct connections
	 * @param includeQuery whether to read each session's query text, which may hold
	 * personal data
	 * @return the inspector
	 */
	public static AdvisoryLockInspector forDataSource(DataSource dataSource,
			DirectConnectionsRegistry directConnections, boolean includeQuery) {
		AbstractRoutingDataSource router = DirectConnections.router(dataSource);
		if (router != null) {
			return new AdvisoryLockInspector(router, directConnections, includeQuery);
		}
		DirectConnections direct = directConnections.forDataSource(dataSource);
		return (direct != null) ? new AdvisoryLockInspector(direct, includeQuery)
				: new AdvisoryLockInspector(dataSource, includeQuery);
	}

	/**
	 * Read the advisory locks of the current database, grouped by key, holders before
	 * waiters; for a routing data source, those of each target's database.
	 * @return the locks, at most {@link #MAX_LOCKS}, and whether there were more
	 */
	public Snapshot locks() {
		if (this.registry != null && this.dataSource instanceof AbstractRoutingDataSource router) {
			return targets(router, this.registry);
		}
		try {
			DirectConnections direct = this.directConnections;
			if (direct != null) {
				return direct.inspect(APPLICATION_NAME, (connection) -> read(connection, direct.queryTimeoutSeconds()));
			}
			Assert.state(this.dataSource != null, "No DataSource");
			try (Connection connection = this.dataSource.getConnection()) {
				return read(connection, 0);
			}
		}
		catch (SQLTransientConnectionException ex) {
			throw new TransientDataAccessResourceException(TASK + ": " + ex.getMessage() + "; try again", ex);
		}
		catch (SQLException ex) {
			DataAccessException translated = this.exceptionTranslator.translate(TASK, PgLocksSql.ALL_LOCKS, ex);
			throw (translated != null) ? translated : new UncategorizedSQLException(TASK, PgLocksSql.ALL_LOCKS, ex);
		}
	}

	private Snapshot targets(AbstractRoutingDataSource router, DirectConnectionsRegistry registry) {
		Map<String, DataSource> targets = new TreeMap<>();
		router.getResolvedDataSources().forEach((key, target) -> targets.put(String.valueOf(key), target));
		DataSource defaultTarget = router.getResolvedDefaultDataSource();
		// A default that is also a target is shown once, under its key. The same
		// instance, not an equal one: a wrapper may delegate equals to what it wraps.
		if (defaultTarget != null && targets.values().stream().noneMatch((target) -> target == defaultTarget)) {
			targets.put(DEFAULT_TARGET, defaultTarget);
		}
		Map<String, Snapshot> snapshots = new LinkedHashMap<>();
		targets.forEach((key, target) -> snapshots.put(key, target(target, registry)));
		boolean truncated = snapshots.values().stream().anyMatch(Snapshot::truncated);
		return new Snapshot(null, truncated, Collections.unmodifiableMap(snapshots), null);
	}

	private Snapshot target(DataSource target, DirectConnectionsRegistry registry) {
		try {
			return forDataSource(target, registry, this.includeQuery).locks();
		}
		catch (DataAccessException ex) {
			// One tenant's server down, or busy, must not hide the others'.
			String error = (ex instanceof TransientDataAccessResourceException) ? ex.getMessage()
					: TASK + ": " + ex.getMostSpecificCause().getMessage();
			return new Snapshot(null, false, null, error);
		}
	}

	private Snapshot read(Connection connection, int timeoutSeconds) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(PgLocksSql.ALL_LOCKS)) {
			statement.setQueryTimeout(timeoutSeconds);
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
	}

	private static LockActivity row(ResultSet result) throws SQLException {
		int objsubid = result.getInt("objsubid");
		Long key = null;
		List<Integer> keyPair = null;
		if (objsubid == 1) {
			key = result.getLong("key");
		}
		else {
			// Two-int form: each int was stored in an (unsigned) oid, so narrowing gives
			// back its sign.
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
	 * The advisory locks of the current database at one moment; for a routing data
	 * source, of each target's.
	 *
	 * @param locks the locks, grouped by key, holders before waiters; {@code null} for a
	 * routing data source
	 * @param truncated whether more than {@link #MAX_LOCKS} were found and the rest left
	 * out (of any target)
	 * @param targets for a routing data source, the locks of each target by lookup key
	 * (the default target, when it is none of them, by {@link #DEFAULT_TARGET});
	 * otherwise {@code null}
	 * @param error why a routing data source's target could not be read (its
	 * {@code locks} are then {@code null}); otherwise {@code null}
	 */
	public record Snapshot(@Nullable List<LockActivity> locks, boolean truncated,
			@Nullable Map<String, Snapshot> targets, @Nullable String error) {

		/**
		 * Create the snapshot of one database.
		 * @param locks the locks, grouped by key, holders before waiters
		 * @param truncated whether there were more than {@link #MAX_LOCKS}
		 */
		public Snapshot(List<LockActivity> locks, boolean truncated) {
			this(locks, truncated, null, null);
		}

	}

	/**
	 * One advisory lock held or awaited by one session.
	 *
	 * @param pid the backend process id of the session
	 * @param key the 64-bit key, for a lock taken with one {@code bigint}; otherwise
	 * {@code null}
	 * @param keyPair the two keys, for a lock taken with two {@code int}s; otherwise
	 * {@code null}
	 * @param mode {@code ExclusiveLock} or {@code ShareLock}
	 * @param granted whether it is held ({@code true}) or awaited
	 * @param waitStart since when the session waits for it, or {@code null} when held (or
	 * before PostgreSQL 14)
	 * @param transactionAge how long the session's transaction has been open, or
	 * {@code null}
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
