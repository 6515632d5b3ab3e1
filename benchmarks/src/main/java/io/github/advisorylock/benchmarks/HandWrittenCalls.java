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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.autoconfigure.AdvisoryLockProperties;
import io.github.advisorylock.core.sql.LockSql;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.annotation.Transactional;

/**
 * Transactions that lock without the annotation: hand-written SQL on the transaction's
 * connection (the floor, and the article's three statements), and
 * {@link AdvisoryLockOperations}.
 */
public class HandWrittenCalls {

	private static final String SERVER_COUNTERS = "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint, "
			+ "pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint";

	private static final String LOCK = "SELECT pg_advisory_xact_lock(?)";

	/**
	 * The floor with the isolation check the contract requires in the same statement (no
	 * row above READ COMMITTED).
	 */
	private static final String CHECKED_LOCK = "SELECT pg_advisory_xact_lock(?) "
			+ "WHERE current_setting('transaction_isolation') IN ('read committed', 'read uncommitted')";

	/**
	 * Both checks the library's statement makes: the isolation, and that the server is
	 * not a standby.
	 */
	private static final String FULLY_CHECKED_LOCK = CHECKED_LOCK + " AND NOT pg_is_in_recovery()";

	/**
	 * The library's wait without a try first, as it sends it for the benchmarks' locks.
	 */
	private static final String WAIT_ONE = LockSql.JDBC.waitOneSql(LockMode.EXCLUSIVE, AnnotatedCalls.NAMESPACE);

	/**
	 * {@link #FULLY_CHECKED_LOCK} with {@code lock_timeout} set first, in a {@code CASE}
	 * whose conditions run in order; left set until the transaction ends.
	 */
	private static final String BOUNDED_LOCK = "SELECT CASE WHEN set_config('lock_timeout', ?, true) IS NULL "
			+ "THEN NULL ELSE pg_advisory_xact_lock(?) IS NULL END "
			+ "WHERE current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') "
			+ "AND NOT pg_is_in_recovery()";

	/** The library's default timeout, as these statements take it. */
	private static final String DEFAULT_TIMEOUT = LockSql
		.waitOneTimeout(new AdvisoryLockProperties().getDefaultTimeout());

	/** A hand-written single round trip for many keys; the caller sorts them. */
	private static final String LOCK_ARRAY = "SELECT count(pg_advisory_xact_lock(k)) FROM unnest(?::bigint[]) AS k";

	private final DataSource dataSource;

	private final AdvisoryLockOperations locks;

	/**
	 * Create the calls.
	 * @param dataSource the data source of the transaction manager
	 * @param locks the library's programmatic API
	 */
	public HandWrittenCalls(DataSource dataSource, AdvisoryLockOperations locks) {
		this.dataSource = dataSource;
		this.locks = locks;
	}

	/**
	 * The floor: one hand-written {@code pg_advisory_xact_lock}, then commit.
	 * @param key the 64-bit key
	 */
	@Transactional
	public void floor(long key) {
		execute(LOCK, key);
	}

	/**
	 * The floor with the isolation and recovery checks in its statement, then commit: the
	 * same work as the library's statement, written by hand.
	 * @param key the 64-bit key
	 */
	@Transactional
	public void fullyCheckedFloor(long key) {
		execute(FULLY_CHECKED_LOCK, key);
	}

	/**
	 * The library's bounded wait without a try first, written by hand with the default
	 * timeout, then commit: what {@code @AdvisoryLocked} sends for a key found held
	 * lately, without the rest of the library.
	 * @param key the 64-bit key
	 */
	@Transactional
	public void libraryWaitOne(long key) {
		execute(WAIT_ONE, DEFAULT_TIMEOUT, key);
	}

	/**
	 * The floor with both checks, bounded by the default timeout set in the same
	 * statement as the article's {@code SET LOCAL lock_timeout} sets it, then commit: the
	 * cheapest bounded wait, whose bound stays for the rest of the transaction.
	 * @param key the 64-bit key
	 */
	@Transactional
	public void boundedFloor(long key) {
		execute(BOUNDED_LOCK, DEFAULT_TIMEOUT, key);
	}

	/**
	 * The floor with the isolation check in its statement, then commit: what a
	 * hand-written lock that keeps the contract's isolation rule costs.
	 * @param key the 64-bit key
	 */
	@Transactional
	public void checkedFloor(long key) {
		execute(CHECKED_LOCK, key);
	}

	/**
	 * The floor with a body that runs under the lock.
	 * @param key the 64-bit key
	 * @param body what the transaction does under the lock
	 */
	@Transactional
	public void floorAndRun(long key, Runnable body) {
		execute(LOCK, key);
		body.run();
	}

	/**
	 * Lock many keys with one hand-written statement, then commit.
	 * @param sortedKeys the 64-bit keys, ascending
	 */
	@Transactional
	public void floorArray(Long[] sortedKeys) {
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try (PreparedStatement statement = connection.prepareStatement(LOCK_ARRAY)) {
			statement.setArray(1, connection.createArrayOf("bigint", sortedKeys));
			statement.execute();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	/**
	 * Lock many keys with one statement each, then commit: what a loop over the
	 * single-key call does.
	 * @param sortedKeys the 64-bit keys, ascending
	 */
	@Transactional
	public void floorLoop(Long[] sortedKeys) {
		for (Long key : sortedKeys) {
			execute(LOCK, key);
		}
	}

	/**
	 * The article's sequence: pin the isolation level, set a local {@code lock_timeout},
	 * lock; three round trips before the commit.
	 * @param key the 64-bit key
	 */
	@Transactional
	public void article(long key) {
		execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
		execute("SELECT set_config('lock_timeout', ?, true)", "2s");
		execute(LOCK, key);
	}

	/**
	 * Lock one key through {@link AdvisoryLockOperations#lock(String, Object...)}, then
	 * commit.
	 * @param key the resource
	 */
	@Transactional
	public void operations(long key) {
		this.locks.lock(AnnotatedCalls.NAMESPACE, key);
	}

	/**
	 * Take and release an invocation-scoped lock on one key, with no work: what a
	 * scheduled job pays to hold it, outside any transaction.
	 * @param key the resource
	 */
	public void invocation(long key) {
		this.locks.execute(LockRequest.of(AnnotatedCalls.NAMESPACE, key).withScope(LockScope.INVOCATION),
				(handle) -> null);
	}

	/**
	 * Take and release an invocation-scoped lock on one key, asking its fencing token:
	 * {@link #invocation(long)} for a job that writes outside the lock's database.
	 * @param key the resource
	 * @return the token
	 */
	public long invocationWithToken(long key) {
		Long token = this.locks
			.execute(LockRequest.of(AnnotatedCalls.NAMESPACE, key).withScope(LockScope.INVOCATION),
					LockHandle::fencingToken)
			.value();
		return (token != null) ? token : 0;
	}

	/**
	 * Read the server's next transaction id and its WAL position in bytes, neither of
	 * which the read itself moves: what a fencing token costs the server, read before and
	 * after.
	 * @return the next xid and the WAL position
	 */
	public long[] serverCounters() {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(SERVER_COUNTERS);
				ResultSet row = statement.executeQuery()) {
			row.next();
			return new long[] { row.getLong(1), row.getLong(2) };
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Run work inside an invocation-scoped call that holds one key, as a scheduled job's
	 * body runs: {@link #operations(long)} for that key is then a fenced write.
	 * @param <T> the type of the work's result
	 * @param key the key the call holds
	 * @param work the work
	 * @return the work's result
	 */
	public <T> T holding(long key, Supplier<T> work) {
		return this.locks
			.execute(LockRequest.of(AnnotatedCalls.NAMESPACE, key).withScope(LockScope.INVOCATION),
					(handle) -> work.get())
			.value();
	}

	private void execute(String sql, Object... parameters) {
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setObject(i + 1, parameters[i]);
			}
			statement.execute();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

}
