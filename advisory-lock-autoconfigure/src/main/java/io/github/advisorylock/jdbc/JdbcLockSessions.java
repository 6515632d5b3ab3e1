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
import java.sql.SQLException;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.sql.LockSql.Opened;
import io.github.advisorylock.core.sql.PermitSql.OpenedLimit;
import io.github.advisorylock.hikari.HikariPools;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * The lock sessions of the JDBC stack: each holds one invocation-scoped call's locks on a
 * connection of its own, never one of the pool the work needs (docs/decisions.md,
 * "Invocation scope"). It comes from the {@code @InvocationLockDataSource}, or from a
 * pool derived from the Hikari pool the {@code DataSource} is, wraps or routes to, at the
 * first call that needs it, so that an application without such calls starts none. Each
 * {@code DataSource} has one bound, shared by its targets' pools; reaching it fails at
 * once, so that no job waits for a connection another holds.
 *
 * @author advisory-lock authors
 */
final class JdbcLockSessions implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(JdbcLockSessions.class);

	private final JdbcDataSources dataSources;

	private final JdbcAcquisitionSupport support;

	private @Nullable DataSource invocationDataSource;

	private int maxConnections = AdvisoryLockTemplate.DEFAULT_MAX_INVOCATION_CONNECTIONS;

	/** The bound of each {@code DataSource}, by name. */
	private final Map<String, Semaphore> permits = new ConcurrentHashMap<>();

	/** Routes of data sources whose target is fixed, by the name a call gives. */
	private final Map<String, SessionRoute> fixedRoutes = new ConcurrentHashMap<>();

	/**
	 * The pools derived from the application's, guarded by itself. None is added once
	 * closed: nothing would close it.
	 */
	private final Map<DataSource, DataSource> derivedPools = new IdentityHashMap<>();

	private boolean closed;

	JdbcLockSessions(JdbcDataSources dataSources, JdbcAcquisitionSupport support) {
		this.dataSources = dataSources;
		this.support = support;
	}

	void setInvocationDataSource(@Nullable DataSource invocationDataSource) {
		this.invocationDataSource = invocationDataSource;
		this.fixedRoutes.clear();
	}

	@Nullable DataSource invocationDataSource() {
		return this.invocationDataSource;
	}

	void setMaxConnections(int maxConnections) {
		this.maxConnections = maxConnections;
		this.fixedRoutes.clear();
	}

	/** Return where a call's session opens: what its locks are known by, and its pool. */
	SessionRoute route(LockRequest request) {
		String given = (request.dataSource() != null) ? request.dataSource() : "";
		SessionRoute fixed = this.fixedRoutes.get(given);
		if (fixed != null) {
			return fixed;
		}
		String name = this.dataSources.invocationName(request.namespace(), request.dataSource());
		DataSource dataSource = this.dataSources.byName().get(name);
		Semaphore permits = this.permits.computeIfAbsent(name, (key) -> new Semaphore(this.maxConnections));
		// A configured source takes every lock in its own database, whatever the data
		// source routes to.
		DataSource configured = name.equals(this.dataSources.defaultName()) ? this.invocationDataSource : null;
		SessionRoute route;
		if (configured != null) {
			// Unwrapped at each call unless fixed, as the transaction scope does: a
			// scoped proxy's target changes when it is refreshed.
			route = new SessionRoute(JdbcDataSourceUnwrapping.innermost(dataSource), configured, false, permits,
					this.maxConnections);
		}
		else {
			DataSource pool = derivedPool(request.namespace(), applicationPool(request.namespace(), name, dataSource));
			route = new SessionRoute(JdbcDataSourceUnwrapping.target(dataSource), pool, true, permits,
					this.maxConnections);
		}
		if (JdbcDataSourceUnwrapping.fixedTarget(dataSource) != null) {
			this.fixedRoutes.put(given, route);
		}
		return route;
	}

	/** Return how many sessions may be held at once, over every data source. */
	int maxSessions() {
		return this.maxConnections * this.dataSources.names().size();
	}

	/** Return the Hikari pool the data source is, wraps, or routes to now. */
	private DataSource applicationPool(String namespace, String name, DataSource dataSource) {
		DataSource pool;
		try {
			pool = HikariPools.applicationPool(dataSource);
		}
		catch (RuntimeException ex) {
			// AbstractRoutingDataSource's "Cannot determine target DataSource for lookup
			// key" tells neither the lock nor the way out.
			throw new IllegalStateException("Invocation-scoped advisory lock '" + namespace + "' takes its connection "
					+ "from a pool derived from the one " + description(name) + " routes to at the call, and it routes "
					+ "to none now: set what it routes by before the call (a tenant, say), give it a default target, "
					+ "or " + wayOut(name), ex);
		}
		if (pool == null) {
			throw new IllegalStateException("Invocation-scoped advisory locks need connections of their own, outside "
					+ "the application's pool, and none can be derived from " + dataSource.getClass().getName()
					+ ((this.dataSources.names().size() > 1) ? " (DataSource '" + name + "')" : "")
					+ " (they are derived from a Hikari pool only, found through DataSource.unwrap, which a routing "
					+ "DataSource answers for the target it routes to at the call): " + wayOut(name));
		}
		return pool;
	}

	private DataSource derivedPool(String namespace, DataSource applicationPool) {
		synchronized (this.derivedPools) {
			DataSource derived = this.derivedPools.get(applicationPool);
			if (derived == null) {
				if (this.closed) {
					throw new IllegalStateException("Invocation-scoped advisory lock '" + namespace + "' was called "
							+ "after its AdvisoryLockTemplate was closed (the application is shutting down)");
				}
				// One connection beyond the sessions', for their fencing tokens.
				derived = HikariPools.derivedPool(applicationPool, "-advisory-lock", this.maxConnections + 1);
				this.derivedPools.put(applicationPool, derived);
			}
			return derived;
		}
	}

	private String description(String name) {
		return (this.dataSources.names().size() > 1) ? "DataSource '" + name + "'" : "the DataSource";
	}

	private String wayOut(String name) {
		return name.equals(this.dataSources.defaultName())
				? "define a DataSource bean with @Bean(defaultCandidate = false) "
						+ "@InvocationLockDataSource, or call AdvisoryLockTemplate.setInvocationDataSource"
				: "make that DataSource a Hikari pool, or hold the lock on the default DataSource";
	}

	/** Open a session's transaction and try its keys, in one round trip. */
	Opened begin(Connection connection, LockRequest request, LockKeys keys, String applicationName, Duration deadMan,
			Duration waitBound) {
		return opening(connection, waitBound, request, keys, () -> JdbcLockSessionStatements.beginInvocation(connection,
				request.mode(), keys.keys(), request.namespace(), applicationName, deadMan.toMillis()));
	}

	/** Open a limit's session's transaction and try its permits, in one round trip. */
	OpenedLimit beginLimit(Connection connection, LockRequest request, PermitSlots slots, String applicationName,
			Duration deadMan, Duration waitBound) {
		return opening(connection, waitBound, request, slots.all(), () -> JdbcLockSessionStatements
			.beginLimit(connection, slots.slots(), request.namespace(), applicationName, deadMan.toMillis()));
	}

	/** Run the opening statements, bounded by the wait's bound until the lock is held. */
	private <T> T opening(Connection connection, Duration waitBound, LockRequest request, LockKeys keys,
			OpeningStatements<T> statements) {
		try {
			connection.setAutoCommit(false);
			setNetworkTimeout(connection, waitBound);
			return statements.run();
		}
		catch (SQLException ex) {
			throw this.support.translateLockFailure(ex, request, keys);
		}
	}

	/** Ready a granted session: a fresh snapshot after a wait, a heartbeat's bound. */
	void granted(Connection connection, LockRequest request, LockKeys keys, boolean waited, Duration deadMan) {
		try {
			if (waited) {
				// The wait's portal would keep its snapshot, holding back vacuum.
				JdbcLockSessionStatements.keepAlive(connection,
						JdbcLockSessionStatements.keepAliveSql(request.namespace(), deadMan.toMillis()));
			}
			// From now on the network timeout bounds a heartbeat and the final rollback.
			setNetworkTimeout(connection, deadMan);
		}
		catch (SQLException ex) {
			throw this.support.translateLockFailure(ex, request, keys);
		}
	}

	/** Make the exception of a lock not acquired, naming its holders if configured. */
	LockBusyException busyException(Connection connection, LockRequest request, LockKeys keys, LockAttempt attempt,
			@Nullable Duration timeout) {
		List<Long> waitedFor = (timeout != null) ? keys.waitedFor(attempt.foundHeld())
				: attempt.foundHeld(request, keys);
		return this.support.busyException(request, keys, timeout, attempt.timedOut(), (diagnosis) -> {
			if (timeout != null) {
				// The timeout aborted the transaction; after its rollback the session can
				// ask again.
				rollback(connection);
			}
			return diagnosis.onConnection(connection, waitedFor, request.mode());
		}, LockFailures.limitHint(request, null));
	}

	JdbcLockSession session(Connection connection, LockRequest request, LockKeys keys, SessionRoute route,
			Acquisition acquisition, long acquiredNanos, Duration deadMan, @Nullable Duration transactionTimeout) {
		return new JdbcLockSession(request.namespace(), request.mode(), keys, route.target(), connection, route.pool(),
				acquisition, JdbcLockSessionStatements.keepAliveSql(request.namespace(), deadMan.toMillis()),
				acquiredNanos, deadMan, transactionTimeout);
	}

	/** Roll a session's transaction back, telling whether its connection is usable. */
	boolean rollback(Connection connection) {
		try {
			connection.rollback();
			return true;
		}
		catch (SQLException ex) {
			logger.debug("Rolling back the transaction of an invocation-scoped advisory lock failed", ex);
			return false;
		}
	}

	private static void setNetworkTimeout(Connection connection, Duration timeout) throws SQLException {
		connection.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
	}

	/**
	 * Close the derived pools, each even when one fails, and derive none from now on.
	 * @throws Exception the first failure, with the later ones suppressed in it
	 */
	@Override
	public void close() throws Exception {
		List<DataSource> pools;
		synchronized (this.derivedPools) {
			this.closed = true;
			pools = List.copyOf(this.derivedPools.values());
		}
		this.fixedRoutes.clear();
		Exception failure = null;
		for (DataSource pool : pools) {
			try {
				if (pool instanceof AutoCloseable closeable) {
					closeable.close();
				}
			}
			catch (Exception ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/** Where a session opens: what its locks are known by, its pool, and its bound. */
	record SessionRoute(DataSource target, DataSource pool, boolean derived, Semaphore permits, int maxConnections) {

		/** Take a connection for a session within the bound, for {@link #release}. */
		Connection obtain(String namespace) {
			if (!this.permits.tryAcquire()) {
				throw new CannotGetJdbcConnectionException(
						LockFailures.noSessionConnectionLeft(namespace, this.maxConnections));
			}
			try {
				return this.pool.getConnection();
			}
			catch (SQLException ex) {
				this.permits.release();
				throw new CannotGetJdbcConnectionException("Invocation-scoped advisory lock '" + namespace + "' could "
						+ "not get its connection from "
						+ (this.derived ? "the pool derived from the application's" : "the @InvocationLockDataSource"),
						ex);
			}
			catch (RuntimeException ex) {
				this.permits.release();
				throw ex;
			}
		}

		/** Give a session's connection back, evicting it unless it was rolled back. */
		void release(Connection connection, boolean usable) {
			try {
				if (!usable) {
					// A pool would lend a dead session again; abort() makes Hikari evict
					// it, and closes a plain one.
					connection.abort(Runnable::run);
				}
				connection.close();
			}
			catch (SQLException | RuntimeException ex) {
				logger.debug("Closing the connection of an invocation-scoped advisory lock failed", ex);
			}
			finally {
				this.permits.release();
			}
		}

	}

	/** The opening statements of a session, in one round trip. */
	@FunctionalInterface
	private interface OpeningStatements<T> {

		T run() throws SQLException;

	}

}
