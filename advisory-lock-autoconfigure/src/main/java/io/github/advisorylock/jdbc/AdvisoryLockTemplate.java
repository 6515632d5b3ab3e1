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
import io.github.advisorylock.core.ExclusionProof;
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
 * {@link DataSource}: {@code DataSourceTransactionManager},
 * {@code JdbcTransactionManager}, and {@code JpaTransactionManager} with Hibernate when
 * it knows its {@code DataSource} (as under Spring Boot). Free locks cost one statement,
 * whatever the number of keys, checks included; a {@link WaitMode#BLOCK} that finds a key
 * held sends a second, which waits within the timeout. PostgreSQL releases the locks at
 * COMMIT or ROLLBACK.
 *
 * <p>
 * With several {@code DataSource}s ({@link #AdvisoryLockTemplate(Map, String)}), a
 * transaction-scoped call joins the connection bound to its transaction; where several
 * are bound, the request must name one ({@link LockRequest#dataSource()}).
 *
 * <p>
 * A lock not acquired is a {@link LockBusyException}; any other {@link SQLException} goes
 * through the {@link SQLExceptionTranslator}, so a deadlock is a
 * {@code PessimisticLockingFailureException}.
 *
 * <p>
 * {@link LockScope#INVOCATION Invocation-scoped} locks ({@link #execute},
 * {@link #acquire}) each hold a connection of their own (see
 * {@link #setInvocationDataSource}) in a read-only transaction kept alive by a heartbeat,
 * under a bound per {@code DataSource}. {@link #isHeld} and {@link #assertHeld} answer
 * without SQL, from what the template took.
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

	/** Read once per call, so that a call never mixes two settings. */
	private volatile LockSettings settings = LockSettings.of(DEFAULT_TIMEOUT);

	private final LockLifecycle lifecycle = new LockLifecycle();

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
	 * transaction-scoped call joins the one bound to its transaction, an
	 * invocation-scoped call takes its own from the one it names or the default (without
	 * one, it must name one).
	 * @param dataSources the data sources by bean name, at least one
	 * @param defaultDataSource the name of the default (primary) one, or {@code null}
	 */
	public AdvisoryLockTemplate(Map<String, DataSource> dataSources, @Nullable String defaultDataSource) {
		Assert.notNull(dataSources, "DataSources must not be null");
		this.dataSources = new JdbcDataSources(dataSources, defaultDataSource);
		this.transactionLocks = new JdbcTransactionLockExecutor(this.dataSources, this.support, this.lifecycle);
		this.lockSessions = new JdbcLockSessions(this.dataSources, this.support);
		this.invocationLocks = new JdbcInvocationLockExecutor(this.support, this.lifecycle, this.lockSessions);
	}

	/** Set the key derivation. Defaults to {@link LockKeyStrategy#standard()}. */
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
	 * Set whether a busy lock's {@link LockBusyException} names the sessions holding it:
	 * {@code true} sets a {@link PgLocksHolderDiagnosis} bounded by one second, which
	 * after a timeout asks outside the pool; {@code false} sets none.
	 * @param holderDiagnosis whether to ask
	 */
	public void setHolderDiagnosis(boolean holderDiagnosis) {
		setHolderDiagnosis(
				holderDiagnosis ? new PgLocksHolderDiagnosis(new DirectConnectionsRegistry(DIAGNOSIS_TIMEOUT)) : null);
	}

	/**
	 * Set the listeners told about each acquisition, in order. Defaults to none. One that
	 * throws is logged at WARN; the others are still told, and the call goes on.
	 */
	public void setListeners(List<LockAcquisitionListener> listeners) {
		Assert.noNullElements(listeners, "Listeners must not be null");
		this.settings = this.settings.withListeners(listeners);
	}

	/**
	 * Set the source of the connections that hold invocation-scoped locks on the default
	 * {@link DataSource}. It must not be the pool the work uses, since each lock holds a
	 * connection for the whole call. Defaults to a pool derived from the Hikari pool the
	 * {@code DataSource} is or routes to at the call (where there is none,
	 * invocation-scoped calls fail, saying so); other {@code DataSource}s always use a
	 * derived pool.
	 * @param invocationDataSource the source, or {@code null} to derive one
	 * @throws IllegalStateException if a source is given and there is no default
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
	 * Set how often an invocation-scoped lock's session is kept alive
	 * ({@code advisory-lock.invocation.heartbeat}); PostgreSQL ends a session silent for
	 * three intervals, and its locks with it. Defaults to 10 seconds.
	 * @param heartbeat the interval, from 100ms (so that three outlast a round trip and a
	 * short pause) to an hour
	 */
	public void setHeartbeat(Duration heartbeat) {
		this.invocationLocks.setHeartbeat(heartbeat);
	}

	/**
	 * Set the most invocation-scoped locks held at once on each {@code DataSource}
	 * ({@code advisory-lock.invocation.max-connections}). Defaults to 4.
	 * @param maxInvocationConnections the bound, positive
	 */
	public void setMaxInvocationConnections(int maxInvocationConnections) {
		this.lockSessions.setMaxConnections(LockSettings.checkMaxConnections(maxInvocationConnections));
	}

	/**
	 * Prove, as the auto-configuration does at startup, that the locks of each of this
	 * template's data sources exclude: a session of it is refused a random key that
	 * another session of it holds, and a session of the
	 * {@linkplain #setInvocationDataSource invocation-scoped source}, where one is set, a
	 * key that a session of the default data source holds. Each check is bounded by the
	 * timeout; one that cannot be made within it (the database down, a pool of one) is
	 * logged at {@code WARN}, and passes (docs/poolers.md, "The startup check").
	 * @param timeout the bound of each check, positive
	 * @throws IllegalStateException if the locks of a data source exclude nobody, its
	 * server refuses the advisory lock functions, or a session of it is given a standby,
	 * where every lock is refused; the message names it, what was seen and the known
	 * causes
	 * @since 0.1.0
	 */
	public void checkExclusion(Duration timeout) {
		Assert.isTrue(timeout.compareTo(Duration.ZERO) > 0, "Timeout of the exclusion check must be positive");
		ExclusionProof
			.report(JdbcExclusionProof.check(this.dataSources, this.lockSessions.invocationDataSource(), timeout));
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
	 * Close the template as the application shuts down: no lock is taken any more, a wait
	 * in progress is cancelled on the server, and each fails with a
	 * {@link org.springframework.dao.CannotAcquireLockException} that is not a
	 * {@link io.github.advisorylock.LockBusyException} (nobody else need hold the lock).
	 * The heartbeats stop, the invocation-scoped locks' connections close, and the locks
	 * still held are reported lost. Spring Boot calls it after the web server's graceful
	 * shutdown.
	 * @throws Exception if closing a derived pool fails (the others are still closed)
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
	 * The locks are taken on the {@code DataSource} the request names, or the default,
	 * from the same connections and under the same bound as {@link #execute execute}'s.
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
