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

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.util.Assert;

/**
 * The {@link DirectConnections} of each {@link DataSource} of an application, derived at
 * first use and kept, so that a read of {@code pg_locks} about a lock goes to that lock's
 * server and the diagnosis and the endpoint share one bound per {@code DataSource} (each
 * target of a routing one counting as its own).
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public final class DirectConnectionsRegistry {

	private final Duration timeout;

	/** Empty for a data source that has none, so that it is not derived at each read. */
	private final Map<DataSource, Optional<DirectConnections>> byDataSource = new ConcurrentHashMap<>();

	/**
	 * Create a registry.
	 * @param timeout the bound on connecting, each read and each query
	 * ({@code advisory-lock.diagnosis.timeout}, see
	 * {@link DirectConnections#checkTimeout})
	 */
	public DirectConnectionsRegistry(Duration timeout) {
		DirectConnections.checkTimeout(timeout, "advisory-lock.diagnosis.timeout");
		this.timeout = timeout;
	}

	/** Return the bound on connecting, on each read and on each query. */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Return the direct connections of a data source, deriving them at the first call
	 * (see {@link DirectConnections#of}); for an {@link AbstractRoutingDataSource}, those
	 * of the current thread's target.
	 * @param dataSource the data source
	 * @return its direct connections, or {@code null} when it (or the current target) is
	 * not a Hikari pool with a JDBC URL
	 */
	public @Nullable DirectConnections forDataSource(DataSource dataSource) {
		Assert.notNull(dataSource, "DataSource must not be null");
		AbstractRoutingDataSource router = DirectConnections.router(dataSource);
		DataSource server = (router != null) ? DirectConnections.currentPool(router) : dataSource;
		if (server == null) {
			return null;
		}
		return this.byDataSource
			.computeIfAbsent(server, (key) -> Optional.ofNullable(DirectConnections.of(key, this.timeout)))
			.orElse(null);
	}

}
