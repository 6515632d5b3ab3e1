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

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;

import javax.sql.DataSource;

import io.github.advisorylock.hikari.HikariPools;
import org.jspecify.annotations.Nullable;

/**
 * Which database a lock session of one of the template's {@link DataSource}s is opened
 * on, found again at each call: a {@code DataSource} that routes
 * ({@code AbstractRoutingDataSource}) sends each call to the database of the target it
 * routes to at that call, through a pool derived from that target, and the pools of all
 * its targets share one bound on the locks held at once. A {@code DataSource} that does
 * not route always finds the same runner, by an identity check.
 */
final class LockSessionRouting implements AutoCloseable {

	private final String name;

	private final DataSource dataSource;

	private final @Nullable DataSource configured;

	private final boolean isDefault;

	private final boolean several;

	private final int maxConnections;

	/**
	 * One bound for every pool this data source routes to: it counts the locks this
	 * instance holds on it.
	 */
	private final Semaphore permits;

	private final Duration heartbeat;

	private final String instance;

	private final AcquisitionSupport support;

	/** The route of the last call and its runner, checked first. */
	private volatile @Nullable Routed last;

	/** Guarded by itself. */
	private final Map<Route, LockSessionRunner> routes = new HashMap<>();

	/**
	 * Guarded by {@link #routes}: once closed, no route is added, as nothing would close
	 * it.
	 */
	private boolean closed;

	/**
	 * Create the routing of one data source.
	 * @param name its bean name
	 * @param dataSource the data source
	 * @param configured the source of the locks' connections the application gave, or
	 * {@code null} to derive them
	 * @param isDefault whether it is the template's default data source, which a
	 * configured source may serve
	 * @param several whether the template knows several, so that messages name this one
	 * @param maxConnections the most locks held at once on it
	 * @param heartbeat the heartbeat of held locks
	 * @param instance names this process in the locks' sessions
	 * @param support the listeners, timeout and failures shared with transaction-scoped
	 * calls
	 */
	LockSessionRouting(String name, DataSource dataSource, @Nullable DataSource configured, boolean isDefault,
			boolean several, int maxConnections, Duration heartbeat, String instance, AcquisitionSupport support) {
		this.name = name;
		this.dataSource = dataSource;
		this.configured = configured;
		this.isDefault = isDefault;
		this.several = several;
		this.maxConnections = maxConnections;
		this.permits = new Semaphore(maxConnections);
		this.heartbeat = heartbeat;
		this.instance = instance;
		this.support = support;
	}

	/**
	 * Return the runner of a call: the one of the pool the data source routes to now,
	 * made at the first call routed there.
	 * @param namespace the namespace of the call, for messages
	 * @return the runner
	 * @throws IllegalStateException if no connection source can be found for where the
	 * data source routes now, or the template was closed
	 */
	LockSessionRunner runner(String namespace) {
		// What a nested call on the same database finds the locks by, and the pool their
		// connections come from. A configured source takes every lock in its own
		// database, whatever the data source routes to.
		DataSource target = (this.configured != null) ? DataSourceUnwrapping.innermost(this.dataSource)
				: DataSourceUnwrapping.target(this.dataSource);
		DataSource pool = (this.configured != null) ? this.configured : applicationPool(namespace);
		Routed last = this.last;
		if (last != null && last.route().target == target && last.route().pool == pool) {
			return last.runner();
		}
		Route route = new Route(target, pool);
		LockSessionRunner runner;
		synchronized (this.routes) {
			runner = this.routes.get(route);
			if (runner == null) {
				if (this.closed) {
					throw new IllegalStateException("Invocation-scoped advisory lock '" + namespace + "' was called "
							+ "after its AdvisoryLockTemplate was closed (the application is shutting down)");
				}
				runner = newRunner(route);
				this.routes.put(route, runner);
			}
		}
		this.last = new Routed(route, runner);
		return runner;
	}

	private LockSessionRunner newRunner(Route route) {
		LockSessionConnections connections = (this.configured != null)
				? new LockSessionConnections(this.configured, false, this.permits, this.maxConnections)
				: new LockSessionConnections(HikariPools.derivedPool(route.pool, "-advisory-lock", this.maxConnections),
						true, this.permits, this.maxConnections);
		return new LockSessionRunner(connections, route.target, this.heartbeat, this.instance, this.support);
	}

	/**
	 * Return the application's Hikari pool the data source is, wraps, or routes to now.
	 */
	private DataSource applicationPool(String namespace) {
		DataSource pool;
		try {
			pool = HikariPools.applicationPool(this.dataSource);
		}
		catch (RuntimeException ex) {
			// AbstractRoutingDataSource's "Cannot determine target DataSource for lookup
			// key" tells neither the lock nor the way out.
			throw new IllegalStateException("Invocation-scoped advisory lock '" + namespace + "' takes its connection "
					+ "from a pool derived from the one " + description() + " routes to at the call, and it routes to "
					+ "none now: set what it routes by before the call (a tenant, say), give it a default target, or "
					+ wayOut(), ex);
		}
		if (pool == null) {
			throw new IllegalStateException("Invocation-scoped advisory locks need connections of their own, outside "
					+ "the application's pool, and none can be derived from " + this.dataSource.getClass().getName()
					+ (this.several ? " (DataSource '" + this.name + "')" : "")
					+ " (they are derived from a Hikari pool only, found through DataSource.unwrap, which a routing "
					+ "DataSource answers for the target it routes to at the call): " + wayOut());
		}
		return pool;
	}

	private String description() {
		return this.several ? "DataSource '" + this.name + "'" : "the DataSource";
	}

	private String wayOut() {
		return this.isDefault
				? "define a DataSource bean with @Bean(defaultCandidate = false) "
						+ "@InvocationLockDataSource, or call AdvisoryLockTemplate.setInvocationDataSource"
				: "make that DataSource a Hikari pool, or hold the lock on the default DataSource";
	}

	/**
	 * Stop the heartbeats and close the connections of every route, and add none from now
	 * on.
	 * @throws Exception if closing a derived pool fails (the others are closed all the
	 * same)
	 */
	@Override
	public void close() throws Exception {
		List<LockSessionRunner> all;
		synchronized (this.routes) {
			this.closed = true;
			all = new ArrayList<>(this.routes.values());
		}
		InvocationScopeFlow.closeAll(all);
	}

	/**
	 * Where a call locks: the data source its locks are known by, and the pool its
	 * connection comes from; equal by identity, as data sources are.
	 */
	private static final class Route {

		final DataSource target;

		final DataSource pool;

		Route(DataSource target, DataSource pool) {
			this.target = target;
			this.pool = pool;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return other instanceof Route route && route.target == this.target && route.pool == this.pool;
		}

		@Override
		public int hashCode() {
			return 31 * System.identityHashCode(this.target) + System.identityHashCode(this.pool);
		}

	}

	private record Routed(Route route, LockSessionRunner runner) {

	}

}
