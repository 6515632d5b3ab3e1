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

import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.HeldLock;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockCallback;
import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockLifecycle;
import io.github.advisorylock.core.LockSettings;
import io.github.advisorylock.core.session.HeldLocks;
import io.github.advisorylock.pglocks.DirectConnectionsRegistry;
import io.github.advisorylock.pglocks.PgLocksHolderDiagnosis;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.util.Assert;

/**
 * {@link AdvisoryLockOperations} on PostgreSQL through JDBC: takes transaction-level
 * advisory locks on the connection of the current Spring transaction.
 *
 * <p>
 * Works with any transaction manager that binds a {@link ConnectionHolder} for the
 * {@link DataSource} to the transaction, such as {@code DataSourceTransactionManager},
 * {@code JdbcTransactionManager} and {@code JpaTransactionManager} with Hibernate (which
 * binds one when it knows its {@code DataSource}, as it does in Spring Boot's
 * auto-configuration). An acquisition whose locks are free is one statement (see
 * {@code JdbcLockStatements}): one network round trip, whatever the number of keys,
 * including the check that a lock is allowed (isolation, recovery). A
 * {@link WaitMode#BLOCK} that finds a key held sends a second statement, which waits
 * within the timeout. The template never releases a lock: PostgreSQL does, at COMMIT or
 * ROLLBACK.
 *
 * <p>
 * A template may know several {@code DataSource}s, by bean name (see
 * {@link #AdvisoryLockTemplate(Map, String)}): a transaction-scoped call joins the
 * connection bound to the current transaction, whichever of them it is of, and where
 * connections of several are bound at once (a transaction of one manager inside
 * another's) the request must name one ({@link LockRequest#dataSource()}). An
 * invocation-scoped call takes its own connection from the one it names, or from the
 * default one.
 *
 * <p>
 * Errors keep Spring's vocabulary: a lock not acquired is a {@link LockBusyException},
 * any other {@link SQLException} goes through the {@link SQLExceptionTranslator}, so a
 * deadlock between two calls is a {@code PessimisticLockingFailureException}
 * ({@code DeadlockLoserDataAccessException} on Spring Framework 6).
 *
 * <p>
 * {@link LockScope#INVOCATION Invocation-scoped} locks run through {@link #execute}: each
 * holds a connection of its own (see {@link #setInvocationDataSource}) in a read-only
 * transaction for the whole call, kept alive by a heartbeat; each {@code DataSource} has
 * its own source of them, with its own bound, shared by the targets of one that routes
 * (each call takes its connection where it routes at that call). {@link #acquire} holds
 * the same kind of lock beyond a call, until it is released. {@link #close()} stops the
 * heartbeats and closes those connections.
 *
 * <p>
 * Optionally, a {@link LockHolderDiagnosis} names the holders in each
 * {@code LockBusyException} (on the failure path only;
 * {@link #setHolderDiagnosis(boolean)} sets the one that reads {@code pg_locks}), and
 * {@link LockAcquisitionListener}s are told about every acquisition (metrics, tracing,
 * key labels).
 *
 * <p>
 * {@link #isHeld} and {@link #assertHeld} answer from what the template took, without
 * SQL: per transaction, a record bound to it that follows suspend, resume and savepoints;
 * per thread, the invocation-scoped locks held.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockTemplate implements AdvisoryLockOperations, AutoCloseable {

	/** The default acquisition timeout of {@link WaitMode#BLOCK}. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	/** The default bound on the distinct keys of one call. */
	public static final int DEFAULT_MAX_KEYS = 64;

	/** The default interval of an invocation-scoped lock's heartbeat. */
	public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(10);

	/**
	 * The default bound on the invocation-scoped locks held at once on one
	 * {@code DataSource}.
	 */
	public static final int DEFAULT_MAX_INVOCATION_CONNECTIONS = 4;

	/**
	 * The name {@link #AdvisoryLockTemplate(DataSource)} gives its {@code DataSource},
	 * Spring Boot's name of it.
	 */
	public static final String DEFAULT_DATA_SOURCE_NAME = "dataSource";

	/** The bound on one diagnosis set by {@link #setHolderDiagnosis(boolean)}. */
	private static final Duration DIAGNOSIS_TIMEOUT = Duration.ofSeconds(1);

	private final JdbcDataSources dataSources;

	/**
	 * What every call reads, replaced by the setters below: a call reads it once, at its
	 * start.
	 */
	private volatile LockSettings settings = LockSettings.of(DEFAULT_TIMEOUT);

	private final LockLifecycle lifecycle = new LockLifecycle();

	/** The waits and failures of both executors, set by the setters below. */
	private final JdbcAcquisitionSupport support = new JdbcAcquisitionSupport(this.lifecycle);

	private final JdbcTransactionLockExecutor transactionLocks;

	private final JdbcLockSessions lockSessions;

	private final JdbcInvocationLockExecutor invocationLocks;

	/**
	 * Create a template that locks on the connections of the given {@link DataSource},
	 * the only one it knows, under the name {@value #DEFAULT_DATA_SOURCE_NAME}.
	 * @param dataSource the data source whose transactions the locks join
	 */
	public AdvisoryLockTemplate(DataSource dataSource) {
		// Not Map.of: a null one is refused by the check that names it.
		this(Collections.singletonMap(DEFAULT_DATA_SOURCE_NAME, dataSource), DEFAULT_DATA_SOURCE_NAME);
	}

	/**
	 * Create a template that locks on the connections of several {@link DataSource}s: a
	 * transaction-scoped call joins the one bound to its transaction, and an
	 * invocation-scoped call takes its own from the one it names or from the default.
	 * Without a default, an invocation-scoped call must name one.
	 * @param dataSources the data sources by bean name, at least one
	 * @param defaultDataSource the name of the default one (the primary one), or
	 * {@code null} for none
	 */
	public AdvisoryLockTemplate(Map<String, DataSource> dataSources, @Nullable String defaultDataSource) {
		Assert.notNull(dataSources, "DataSources must not be null");
		this.dataSources = new JdbcDataSources(dataSources, defaultDataSource);
		this.transactionLocks = new JdbcTransactionLockExecutor(this.dataSources, this.support, this.lifecycle);
		this.lockSessions = new JdbcLockSessions(this.dataSources, this.support);
		this.invocationLocks = new JdbcInvocationLockExecutor(this.support, this.lifecycle, this.lockSessions);
	}

	/**
	 * Set the key derivation. Defaults to {@link LockKeyStrategy#standard()}.
	 * @param keyStrategy the key derivation
	 */
	public void setKeyStrategy(LockKeyStrategy keyStrategy) {
		this.settings = this.settings.withKeyStrategy(keyStrategy);
	}

	/**
	 * Set how long {@link WaitMode#BLOCK} waits when a request gives no timeout
	 * ({@code advisory-lock.default-timeout}). Defaults to 2 seconds.
	 * @param defaultTimeout the timeout (see {@link LockRequest#checkTimeout})
	 */
	public void setDefaultTimeout(Duration defaultTimeout) {
		LockRequest.checkTimeout(defaultTimeout, "advisory-lock.default-timeout");
		this.settings = this.settings.withDefaultTimeout(defaultTimeout);
	}

	/**
	 * Set the most distinct keys one call may lock ({@code advisory-lock.max-keys}).
	 * Defaults to 64.
	 * @param maxKeys the limit, positive
	 */
	public void setMaxKeys(int maxKeys) {
		this.settings = this.settings.withMaxKeys(maxKeys);
	}

	/**
	 * Set the translator for SQL errors other than a lock timeout. Defaults to a
	 * {@link SQLErrorCodeSQLExceptionTranslator} for PostgreSQL.
	 * @param exceptionTranslator the translator
	 */
	public void setExceptionTranslator(SQLExceptionTranslator exceptionTranslator) {
		Assert.notNull(exceptionTranslator, "SQLExceptionTranslator must not be null");
		this.support.setExceptionTranslator(exceptionTranslator);
	}

	/**
	 * Set the diagnosis that names the holders of a busy lock in its
	 * {@link LockBusyException}. Defaults to none.
	 * @param holderDiagnosis the diagnosis, or {@code null} for none
	 */
	public void setHolderDiagnosis(@Nullable LockHolderDiagnosis holderDiagnosis) {
		this.support.setHolderDiagnosis(holderDiagnosis);
	}

	/**
	 * Set whether a busy lock's {@link LockBusyException} names the sessions holding it,
	 * as the R2DBC template's setter of the same name does: {@code true} sets the
	 * auto-configuration's {@link PgLocksHolderDiagnosis}, bounded by one second (after a
	 * timeout it asks outside the pool, from the caller's Hikari pool's settings);
	 * {@code false} sets none. For another bound, set one of your own.
	 * @param holderDiagnosis whether to ask
	 */
	public void setHolderDiagnosis(boolean holderDiagnosis) {
		setHolderDiagnosis(
				holderDiagnosis ? new PgLocksHolderDiagnosis(new DirectConnectionsRegistry(DIAGNOSIS_TIMEOUT)) : null);
	}

	/**
	 * Set the listeners told about each acquisition, in order. Defaults to none. A
	 * listener that throws is logged at WARN and skipped: the others are still told, and
	 * the call goes on.
	 * @param listeners the listeners
	 */
	public void setListeners(List<LockAcquisitionListener> listeners) {
		Assert.noNullElements(listeners, "Listeners must not be null");
		this.settings = this.settings.withListeners(listeners);
	}

	/**
	 * Set the source of the connections that hold invocation-scoped locks on the default
	 * {@link DataSource}. It must not be the pool the work uses: a lock held for a whole
	 * call takes one of its connections for that long. Defaults to a pool derived from
	 * that {@code DataSource} when it is a Hikari pool, or, when it routes
	 * ({@code AbstractRoutingDataSource}), from the Hikari pool it routes to at each
	 * call; otherwise invocation-scoped calls fail, saying so. Invocation-scoped locks on
	 * another {@code DataSource} always use a pool derived from it.
	 * @param invocationDataSource the source, or {@code null} to derive one
	 * @throws IllegalStateException if a source is given and the template has no default
	 * {@code DataSource}
	 */
	public void setInvocationDataSource(@Nullable DataSource invocationDataSource) {
		Assert.state(invocationDataSource == null || this.dataSources.defaultName() != null,
				() -> "An invocation "
						+ "lock DataSource serves the locks of the default DataSource, and there is none among "
						+ this.dataSources.names() + ": mark one DataSource bean @Primary");
		this.lockSessions.setInvocationDataSource(invocationDataSource);
	}

	/**
	 * Set how often an invocation-scoped lock's session is checked while its work runs.
	 * Three intervals without one (a hung or cut-off holder) make PostgreSQL end the
	 * session and release the lock ({@code advisory-lock.invocation.heartbeat}). Defaults
	 * to 10 seconds.
	 * @param heartbeat the interval: at least 100ms, so that the dead-man switch of three
	 * heartbeats outlasts a round trip and a short pause, and at most an hour
	 */
	public void setHeartbeat(Duration heartbeat) {
		this.invocationLocks.setHeartbeat(heartbeat);
	}

	/**
	 * Set the most invocation-scoped locks held at once on each {@code DataSource}, each
	 * by a connection of its own. ({@code advisory-lock.invocation.max-connections}).
	 * Defaults to 4.
	 * @param maxInvocationConnections the bound, positive
	 */
	public void setMaxInvocationConnections(int maxInvocationConnections) {
		this.lockSessions.setMaxConnections(LockSettings.checkMaxConnections(maxInvocationConnections));
	}

	/**
	 * Set the name of this instance in the {@code application_name} of its
	 * invocation-scoped lock sessions, which an operator sees in {@code pg_stat_activity}
	 * and in busy errors. Defaults to the JVM's {@code pid@host}.
	 * @param instanceName the name
	 */
	public void setInstanceName(String instanceName) {
		Assert.hasText(instanceName, "Instance name must not be blank");
		this.invocationLocks.setInstanceName(instanceName);
	}

	/**
	 * Close the template as the application shuts down: no lock is taken any more, and a
	 * wait in progress is cancelled on the server; each fails with a
	 * {@link org.springframework.dao.CannotAcquireLockException} saying so, and no locked
	 * work starts. The heartbeats stop, the connections of invocation-scoped locks close,
	 * and the locks still held are reported lost. Spring Boot calls it as the context
	 * closes, after the web server's graceful shutdown ({@code docs/failures.md}).
	 * @throws Exception if closing a derived pool fails (the others are closed all the
	 * same)
	 */
	@Override
	public void close() throws Exception {
		// First, so that no call starts and no wait goes on while the sessions close.
		this.lifecycle.close();
		this.invocationLocks.close();
	}

	@Override
	public void lock(String namespace, @Nullable Object... keys) {
		lock(LockRequest.of(namespace, keys));
	}

	@Override
	public boolean tryLock(String namespace, @Nullable Object... keys) {
		LockRequest request = LockRequest.of(namespace, keys).withWaitMode(WaitMode.TRY);
		LockSettings settings = this.settings;
		return this.transactionLocks.acquire(request, LockKeys.resolve(request, settings), settings, false);
	}

	@Override
	public void lock(LockRequest request) {
		Assert.isTrue(request.scope() == LockScope.TRANSACTION, () -> "lock(LockRequest) takes transaction-scoped "
				+ "locks; run the work of an invocation-scoped lock with execute(request, callback)");
		Assert.isTrue(request.waitMode() != WaitMode.SKIP, () -> "WaitMode.SKIP skips work, and lock(LockRequest) "
				+ "has none: use execute(request, callback), or tryLock");
		LockSettings settings = this.settings;
		this.transactionLocks.acquire(request, LockKeys.resolve(request, settings), settings, true);
	}

	@Override
	public <T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockCallback<T> callback) {
		Assert.notNull(callback, "LockCallback must not be null");
		this.lifecycle.checkOpen(request);
		LockSettings settings = this.settings;
		LockKeys keys = LockKeys.resolve(request, settings);
		if (request.scope() == LockScope.INVOCATION) {
			return this.invocationLocks.execute(request, keys, settings, callback);
		}
		return this.transactionLocks.execute(request, keys, settings, callback);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The locks are taken on the {@code DataSource} the request names, or the default
	 * one, through the same source of connections and under the same bound as
	 * {@link #execute execute}'s.
	 */
	@Override
	public Optional<HeldLock> acquire(LockRequest request) {
		Assert.notNull(request, "LockRequest must not be null");
		Assert.isTrue(request.scope() == LockScope.INVOCATION,
				() -> "acquire(LockRequest) holds invocation-scoped "
						+ "locks until they are released: give the request withScope(LockScope.INVOCATION) (a "
						+ "transaction-scoped lock is taken with lock(request), and its transaction releases it)");
		this.lifecycle.checkOpen(request);
		LockSettings settings = this.settings;
		return Optional.ofNullable(this.invocationLocks.hold(request, LockKeys.resolve(request, settings), settings));
	}

	@Override
	public void checkHeld() {
		HeldLocks.checkHeld();
	}

	@Override
	public LockHandle currentHandle() {
		return HeldLocks.currentHandle();
	}

	@Override
	public boolean isHeld(String namespace, @Nullable Object... keys) {
		LockRequest request = LockRequest.of(namespace, keys);
		return this.transactionLocks.holds(request, LockKeys.resolve(request, this.settings));
	}

	@Override
	public void assertHeld(String namespace, @Nullable Object... keys) {
		LockRequest request = LockRequest.of(namespace, keys);
		LockKeys resolved = LockKeys.resolve(request, this.settings);
		if (!this.transactionLocks.holds(request, resolved)) {
			throw LockFailures.notHeld(namespace, resolved.values());
		}
	}

}
