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
import java.util.List;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.jdbc.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.jdbc.LockAcquisitionListener.Outcome;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * {@link AdvisoryLockOperations} on PostgreSQL through JDBC: takes transaction-level advisory locks on the connection
 * of the current Spring transaction.
 *
 * <p>Works with any transaction manager that binds a {@link ConnectionHolder} for the {@link DataSource} to the
 * transaction, such as {@code DataSourceTransactionManager}, {@code JdbcTransactionManager} and
 * {@code JpaTransactionManager} with Hibernate. An acquisition whose locks are free is one statement (see
 * {@code AdvisoryLockStatements}): one network round trip, whatever the number of keys, including the isolation check.
 * A {@link WaitMode#BLOCK} that finds a key held sends a second statement, which waits within the timeout. The template
 * never releases a lock: PostgreSQL does, at COMMIT or ROLLBACK.
 *
 * <p>Errors keep Spring's vocabulary: a lock not acquired is a {@link LockBusyException}, any other
 * {@link SQLException} goes through the {@link SQLExceptionTranslator}, so a deadlock between two calls is a
 * {@code PessimisticLockingFailureException} ({@code DeadlockLoserDataAccessException} on Spring Framework 6).
 *
 * <p>Optionally, a {@link LockHolderDiagnosis} names the holders in each {@code LockBusyException} (on the failure path
 * only), and {@link LockAcquisitionListener}s are told about every acquisition (metrics, tracing, key labels).
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockTemplate implements AdvisoryLockOperations {

	/** The default acquisition timeout of {@link WaitMode#BLOCK}. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	/** The default bound on the distinct keys of one call. */
	public static final int DEFAULT_MAX_KEYS = 64;

	/** PostgreSQL's SQLSTATE for {@code lock_not_available}, raised when {@code lock_timeout} runs out. */
	private static final String LOCK_NOT_AVAILABLE = "55P03";

	private final DataSource dataSource;

	private LockKeyStrategy keyStrategy = LockKeyStrategy.standard();

	private Duration defaultTimeout = DEFAULT_TIMEOUT;

	private int maxKeys = DEFAULT_MAX_KEYS;

	private SQLExceptionTranslator exceptionTranslator;

	private @Nullable LockHolderDiagnosis holderDiagnosis;

	private List<LockAcquisitionListener> listeners = List.of();

	/**
	 * Create a template that locks on the connections of the given {@link DataSource}.
	 * @param dataSource the data source whose transactions the locks join
	 */
	public AdvisoryLockTemplate(DataSource dataSource) {
		Assert.notNull(dataSource, "DataSource must not be null");
		this.dataSource = dataSource;
		this.exceptionTranslator = SqlExceptions.postgresTranslator();
	}

	/**
	 * Set the key derivation. Defaults to {@link LockKeyStrategy#standard()}.
	 * @param keyStrategy the key derivation
	 */
	public void setKeyStrategy(LockKeyStrategy keyStrategy) {
		Assert.notNull(keyStrategy, "LockKeyStrategy must not be null");
		this.keyStrategy = keyStrategy;
	}

	/**
	 * Set how long {@link WaitMode#BLOCK} waits when a request gives no timeout. Defaults to 2 seconds.
	 * @param defaultTimeout the timeout (see {@link LockRequest#isValidTimeout})
	 */
	public void setDefaultTimeout(Duration defaultTimeout) {
		Assert.isTrue(LockRequest.isValidTimeout(defaultTimeout), () -> "Default advisory lock timeout must be between "
				+ "1ms and " + LockRequest.MAX_TIMEOUT.toMillis() + "ms, was " + defaultTimeout);
		this.defaultTimeout = defaultTimeout;
	}

	/**
	 * Set the most distinct keys one call may lock. Defaults to 64.
	 * @param maxKeys the limit, positive
	 */
	public void setMaxKeys(int maxKeys) {
		Assert.isTrue(maxKeys > 0, () -> "Advisory lock max keys must be positive, was " + maxKeys);
		this.maxKeys = maxKeys;
	}

	/**
	 * Set the translator for SQL errors other than a lock timeout. Defaults to a
	 * {@link SQLErrorCodeSQLExceptionTranslator} for PostgreSQL.
	 * @param exceptionTranslator the translator
	 */
	public void setExceptionTranslator(SQLExceptionTranslator exceptionTranslator) {
		Assert.notNull(exceptionTranslator, "SQLExceptionTranslator must not be null");
		this.exceptionTranslator = exceptionTranslator;
	}

	/**
	 * Set the diagnosis that names the holders of a busy lock in its {@link LockBusyException}. Defaults to none.
	 * @param holderDiagnosis the diagnosis, or {@code null} for none
	 */
	public void setHolderDiagnosis(@Nullable LockHolderDiagnosis holderDiagnosis) {
		this.holderDiagnosis = holderDiagnosis;
	}

	/**
	 * Set the listeners told about each acquisition, in order. Defaults to none. A listener that throws is logged at
	 * WARN and skipped: the others are still told, and the call goes on.
	 * @param listeners the listeners
	 */
	public void setListeners(List<LockAcquisitionListener> listeners) {
		Assert.noNullElements(listeners, "Listeners must not be null");
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void lock(String namespace, @Nullable Object... keys) {
		lock(LockRequest.of(namespace, keys));
	}

	@Override
	public boolean tryLock(String namespace, @Nullable Object... keys) {
		LockRequest request = LockRequest.of(namespace, keys).withWaitMode(WaitMode.TRY);
		return acquire(request, resolve(request), false);
	}

	@Override
	public void lock(LockRequest request) {
		acquire(request, resolve(request), true);
	}

	private LockKeys resolve(LockRequest request) {
		return LockKeys.resolve(request.namespace(), request.keys(), this.keyStrategy, this.maxKeys);
	}

	/**
	 * Acquire the locks in the current transaction, and tell the listeners how it ended.
	 * @param throwIfBusy whether a {@code TRY} that finds a lock held throws rather than return {@code false}
	 * @return whether every lock is held by this transaction
	 */
	private boolean acquire(LockRequest request, LockKeys keys, boolean throwIfBusy) {
		Acquisition acquisition = starting(request, keys);
		Connection connection;
		try {
			connection = transactionConnection(request.namespace());
		}
		catch (RuntimeException ex) {
			acquisition.finished(Outcome.ERROR, ex);
			throw ex;
		}
		try {
			Attempt attempt;
			try {
				attempt = attempt(connection, request, keys);
			}
			catch (RuntimeException ex) {
				acquisition.finished(Outcome.ERROR, ex);
				throw ex;
			}
			// The listeners hear the outcome before the diagnosis, which may take a second.
			if (attempt.timedOut() != null) {
				acquisition.finished(Outcome.TIMEOUT, attempt.timedOut());
				throw busy(request, keys, timeout(request), attempt.timedOut(), (this.holderDiagnosis != null)
						? this.holderDiagnosis.afterTimeout(connection, attempt.waitedFor(), request.mode()) : null);
			}
			if (attempt.busyKey() == null) {
				acquisition.finished(Outcome.ACQUIRED, null);
				return true;
			}
			acquisition.finished(Outcome.BUSY, null);
			if (throwIfBusy) {
				throw busy(request, keys, null, null, (this.holderDiagnosis != null)
						? this.holderDiagnosis.afterTry(connection, attempt.busyKey(), request.mode()) : null);
			}
			return false;
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	private Acquisition starting(LockRequest request, LockKeys keys) {
		return LockAcquisitionListeners.starting(this.listeners, request.namespace(), request.mode(),
				request.waitMode(), keys.keys(), keys.values());
	}

	private Duration timeout(LockRequest request) {
		return (request.timeout() != null) ? request.timeout() : this.defaultTimeout;
	}

	/**
	 * Run the statements of an acquisition: the try of every key, then, for a {@code BLOCK} that found one held, the
	 * wait for it and the keys after it (see {@code AdvisoryLockStatements}).
	 */
	private Attempt attempt(Connection connection, LockRequest request, LockKeys keys) {
		String sql = AdvisoryLockStatements.tryLock(request.mode(), keys.keys().size(), request.namespace());
		Tried tried;
		try {
			tried = tryKeys(connection, sql, keys);
		}
		catch (SQLException ex) {
			throw failed(ex, request, keys, sql);
		}
		if (!tried.lockable()) {
			throw refusal(connection, request.namespace());
		}
		Long busyKey = tried.busyKey();
		if (busyKey == null || request.waitMode() == WaitMode.TRY) {
			return new Attempt(busyKey, null, List.of());
		}
		List<Long> remaining = keys.keys().subList(keys.keys().indexOf(busyKey), keys.keys().size());
		sql = AdvisoryLockStatements.waitLock(request.mode(), request.namespace());
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setLong(1, Math.max(1, timeout(request).toMillis()));
			statement.setArray(2, connection.createArrayOf("bigint", remaining.toArray(Long[]::new)));
			statement.executeQuery().close();
			return new Attempt(null, null, remaining);
		}
		catch (SQLException ex) {
			if (LOCK_NOT_AVAILABLE.equals(ex.getSQLState())) {
				return new Attempt(null, ex, remaining);
			}
			throw failed(ex, request, keys, sql);
		}
	}

	private static Tried tryKeys(Connection connection, String sql, LockKeys keys) throws SQLException {
		boolean one = keys.keys().size() == 1;
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			if (one) {
				statement.setLong(1, keys.keys().get(0));
			}
			else {
				statement.setArray(1, connection.createArrayOf("bigint", keys.toArray()));
			}
			try (ResultSet result = statement.executeQuery()) {
				if (!result.next()) {
					return Tried.REFUSED;
				}
				if (one) {
					return result.getBoolean(1) ? Tried.ACQUIRED : new Tried(true, keys.keys().get(0));
				}
				long busyKey = result.getLong(1);
				return result.wasNull() ? Tried.ACQUIRED : new Tried(true, busyKey);
			}
		}
	}

	/**
	 * Refuse a lock whose transaction runs above READ COMMITTED, naming its level: one more round trip, on this failure
	 * path only. A failure to read the level must not hide the refusal: it is attached as suppressed.
	 */
	private static LockTransactionException refusal(Connection connection, String namespace) {
		try (PreparedStatement statement = connection.prepareStatement(AdvisoryLockStatements.isolation());
				ResultSet result = statement.executeQuery()) {
			return isolationTooHigh(namespace, result.next() ? result.getString(1) : null);
		}
		catch (SQLException ex) {
			LockTransactionException refusal = isolationTooHigh(namespace, null);
			refusal.addSuppressed(ex);
			return refusal;
		}
	}

	private DataAccessException failed(SQLException ex, LockRequest request, LockKeys keys, String sql) {
		return translate(ex, "Acquire advisory lock " + request.namespace() + ":" + keys.values() + " (keys "
				+ keys.keys() + ")", sql);
	}

	private static LockBusyException busy(LockRequest request, LockKeys keys, @Nullable Duration timeout,
			@Nullable SQLException cause, LockHolderDiagnosis.@Nullable Result diagnosis) {
		if (diagnosis == null) {
			return new LockBusyException(request.namespace(), keys.values(), keys.keys(), timeout, cause);
		}
		LockBusyException ex = new LockBusyException(request.namespace(), keys.values(), keys.keys(), timeout, cause,
				diagnosis.holders(), diagnosis.notDiagnosed());
		if (diagnosis.failure() != null) {
			ex.addSuppressed(diagnosis.failure());
		}
		return ex;
	}

	private Connection transactionConnection(String namespace) {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new LockTransactionException("Advisory lock '" + namespace + "' needs an actual transaction, and "
					+ "none is active: call it inside @Transactional (propagation REQUIRED, REQUIRES_NEW or MANDATORY; "
					+ "SUPPORTS without an outer transaction does not start one), because a transaction-level lock "
					+ "is released when its transaction ends");
		}
		Integer declared = TransactionSynchronizationManager.getCurrentTransactionIsolationLevel();
		if (declared != null && declared > Connection.TRANSACTION_READ_COMMITTED) {
			throw isolationTooHigh(namespace, isolationName(declared));
		}
		if (!(TransactionSynchronizationManager.getResource(this.dataSource) instanceof ConnectionHolder holder)
				|| holder.getConnectionHandle() == null) {
			throw new LockTransactionException("Advisory lock '" + namespace + "' found no JDBC connection of its "
					+ "DataSource bound to the current transaction: the transaction manager must manage that "
					+ "DataSource (DataSourceTransactionManager, JdbcTransactionManager or JpaTransactionManager), "
					+ "or the lock would be taken in another session and protect nothing");
		}
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try {
			// A holder bound by a JdbcTemplate call outside this DataSource's transaction: the lock would end with
			// its statement. Drivers answer this from local state, without a round trip. (A pool that hands out
			// connections with auto-commit off defeats this check; the transaction manager check above remains.)
			if (connection.getAutoCommit()) {
				throw new LockTransactionException("Advisory lock '" + namespace + "' found the connection of its "
						+ "DataSource in auto-commit mode: the current transaction is managed for another resource, so "
						+ "the lock would be released at once. Use a transaction manager for this DataSource");
			}
		}
		catch (SQLException ex) {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
			throw translate(ex, "Check the transaction of advisory lock '" + namespace + "'", null);
		}
		catch (LockTransactionException ex) {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
			throw ex;
		}
		return connection;
	}

	private static LockTransactionException isolationTooHigh(String namespace, @Nullable String isolation) {
		return new LockTransactionException("Advisory lock '" + namespace + "' needs isolation READ COMMITTED, but "
				+ "the transaction runs " + ((isolation != null) ? isolation : "above it") + ": its snapshot would be "
				+ "taken before the lock is granted, so the check after the lock could miss the previous holder's "
				+ "write. Declare @Transactional(isolation = Isolation.READ_COMMITTED), or take the lock in a READ "
				+ "COMMITTED transaction");
	}

	private static String isolationName(int level) {
		return switch (level) {
			case Connection.TRANSACTION_REPEATABLE_READ -> "repeatable read";
			case Connection.TRANSACTION_SERIALIZABLE -> "serializable";
			default -> "isolation level " + level;
		};
	}

	private DataAccessException translate(SQLException ex, String task, @Nullable String sql) {
		return SqlExceptions.translate(this.exceptionTranslator, task, sql, ex);
	}

	/**
	 * What the try of an acquisition found.
	 * @param lockable whether the isolation level allows a lock
	 * @param busyKey the first key found held, or {@code null} when every one was acquired
	 */
	private record Tried(boolean lockable, @Nullable Long busyKey) {

		static final Tried REFUSED = new Tried(false, null);

		static final Tried ACQUIRED = new Tried(true, null);

	}

	/**
	 * How the statements of an acquisition ended.
	 * @param busyKey the key a {@code TRY} found held, or {@code null}
	 * @param timedOut the driver's report of a wait that ran out of time, or {@code null}
	 * @param waitedFor the keys the wait was for: the one found held and those after it (empty without a wait)
	 */
	private record Attempt(@Nullable Long busyKey, @Nullable SQLException timedOut, List<Long> waitedFor) {

	}

}
