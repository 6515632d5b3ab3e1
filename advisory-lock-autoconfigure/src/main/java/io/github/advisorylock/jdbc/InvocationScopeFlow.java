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

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import io.github.advisorylock.LockCallback;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.core.LockKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Runs work under {@link LockScope#INVOCATION invocation-scoped} locks on any of the
 * template's {@code DataSource}s: the routing of each ({@link LockSessionRouting}) is
 * made at its first call, so that an application without one starts no thread and no
 * pool, and all of them are closed with the template. The template sets it up (its
 * setters check the values).
 */
final class InvocationScopeFlow implements AutoCloseable {

	private final LockDataSources dataSources;

	private final AcquisitionSupport support;

	private @Nullable DataSource invocationDataSource;

	private Duration heartbeat = AdvisoryLockTemplate.DEFAULT_HEARTBEAT;

	private int maxConnections = AdvisoryLockTemplate.DEFAULT_MAX_INVOCATION_CONNECTIONS;

	private String instanceName = ManagementFactory.getRuntimeMXBean().getName();

	/**
	 * The routing of each {@code DataSource}'s lock sessions, by its name.
	 */
	private final Map<String, LockSessionRouting> routings = new ConcurrentHashMap<>();

	private volatile boolean closed;

	/**
	 * Create the flow.
	 * @param dataSources the data sources whose connections the locks are taken on
	 * @param support the listeners, timeout and failures shared with transaction-scoped
	 * calls
	 */
	InvocationScopeFlow(LockDataSources dataSources, AcquisitionSupport support) {
		this.dataSources = dataSources;
		this.support = support;
	}

	void setInvocationDataSource(@Nullable DataSource invocationDataSource) {
		this.invocationDataSource = invocationDataSource;
	}

	void setHeartbeat(Duration heartbeat) {
		this.heartbeat = heartbeat;
	}

	void setMaxConnections(int maxConnections) {
		this.maxConnections = maxConnections;
	}

	void setInstanceName(String instanceName) {
		this.instanceName = instanceName;
	}

	/**
	 * Run a callback under the locks of a request, on the {@code DataSource} it names or
	 * the default one.
	 * @param request the request, of invocation scope
	 * @param keys its keys
	 * @param callback the work
	 * @return what the work returned, or that it was skipped
	 */
	<T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockKeys keys, LockCallback<T> callback) {
		String name = this.dataSources.invocationName(request.namespace(), request.dataSource());
		return runner(request.namespace(), name).execute(request, keys, callback);
	}

	/**
	 * Take the locks of a request and hold them, bound to no thread, on the
	 * {@code DataSource} it names or the default one.
	 * @param request the request, of invocation scope
	 * @param keys its keys
	 * @return the held locks, or {@code null} for a skip
	 */
	@Nullable AcquiredLock hold(LockRequest request, LockKeys keys) {
		String name = this.dataSources.invocationName(request.namespace(), request.dataSource());
		return runner(request.namespace(), name).hold(request, keys);
	}

	private LockSessionRunner runner(String namespace, String name) {
		// Closed, it makes no pool and no scheduler that nothing would close; the
		// existing ones refuse on their own.
		Assert.state(!this.closed || this.routings.containsKey(name), () -> "An invocation-scoped advisory "
				+ "lock was called after its AdvisoryLockTemplate was closed (the application is shutting down)");
		// Made at the first invocation-scoped call on each DataSource, so that an
		// application without one starts no thread and no pool; a source that cannot be
		// found fails that call, and the next ones, saying why.
		return this.routings.computeIfAbsent(name, (key) -> {
			boolean isDefault = name.equals(this.dataSources.defaultName());
			return new LockSessionRouting(name, this.dataSources.byName().get(name),
					isDefault ? this.invocationDataSource : null, isDefault, this.dataSources.names().size() > 1,
					this.maxConnections, this.heartbeat, this.instanceName, this.support);
		}).runner(namespace);
	}

	/**
	 * Stop the heartbeats and close the connections of invocation-scoped locks, if any
	 * were used.
	 * @throws Exception if closing a derived pool fails (the others are closed all the
	 * same)
	 */
	@Override
	public void close() throws Exception {
		this.closed = true;
		closeAll(this.routings.values());
	}

	/**
	 * Close each of them, the others too when one fails.
	 * @param closeables what to close
	 * @throws Exception the first failure, with the later ones suppressed in it
	 */
	static void closeAll(Iterable<? extends AutoCloseable> closeables) throws Exception {
		Exception failure = null;
		for (AutoCloseable closeable : closeables) {
			try {
				closeable.close();
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

}
