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
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.advisorylock.hikari.HikariPools;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationUtils;
import org.springframework.util.Assert;

/**
 * Short-lived physical connections to the server of the application's Hikari pool,
 * outside the pool, for the reads of {@code pg_locks} that must answer when the pool is
 * exhausted, as it often is when locks pile up (a timeout's diagnosis, the
 * {@code advisorylocks} endpoint).
 *
 * <p>
 * It owns the bounds of those reads: at most {@link #MAX_CONCURRENT} connections at once,
 * a diagnosis beyond them refused rather than queued, so a storm of timeouts cannot open
 * a storm of connections; at most {@link #MAX_INSPECTIONS} of them for the endpoint's
 * reads, which wait their turn up to the timeout, so polling never starves a diagnosis;
 * and the {@linkplain #getTimeout() timeout} on connecting, every socket read and each
 * query (docs/decisions.md, "Several DataSources").
 *
 * <p>
 * pgjdbc lets a URL parameter win over the same property, so the bounds and the
 * application name are removed from the pool's URL before they are set: a pool URL with
 * {@code socketTimeout=0} cannot make a direct read unbounded.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public final class DirectConnections {

	/** Most direct connections open at once. */
	public static final int MAX_CONCURRENT = 2;

	/** Most of them the endpoint's reads may hold, leaving the rest to the diagnosis. */
	public static final int MAX_INSPECTIONS = 1;

	/** The shortest timeout: JDBC bounds a query in whole seconds. */
	public static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);

	/** The default timeout. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);

	/** The URL parameters set here, which would otherwise override the properties. */
	private static final Set<String> OVERRIDDEN = Set.of("connectTimeout", "loginTimeout", "socketTimeout",
			"ApplicationName");

	/** Bounds the unwrapping, against a wrapper that wraps itself. */
	private static final int MAX_LAYERS = 16;

	private final Connector connector;

	private final Duration timeout;

	private final Semaphore permits = new Semaphore(MAX_CONCURRENT);

	/** Taken first by the endpoint's reads; fair, so that they take turns. */
	private final Semaphore inspections = new Semaphore(MAX_INSPECTIONS, true);

	/** For tests: any source, and the application name is not set. */
	DirectConnections(DataSource source, Duration timeout) {
		this((applicationName) -> source.getConnection(), timeout);
	}

	DirectConnections(Connector connector, Duration timeout) {
		checkTimeout(timeout, "Direct connection timeout");
		this.connector = connector;
		this.timeout = timeout;
	}

	/**
	 * Derive direct connections from the application's data source.
	 * @param dataSource the application's data source
	 * @param timeout the bound on connecting, on each read and on each query (see
	 * {@link #checkTimeout})
	 * @return the connections, or {@code null} when the data source is not a Hikari pool
	 * with a JDBC URL, or routes ({@link AbstractRoutingDataSource}: pass a target)
	 */
	public static @Nullable DirectConnections of(DataSource dataSource, Duration timeout) {
		checkTimeout(timeout, "Direct connection timeout");
		if (router(dataSource) != null) {
			return null;
		}
		Connector connector = connector(dataSource, timeout);
		return (connector != null) ? new DirectConnections(connector, timeout) : null;
	}

	/**
	 * Return the routing data source a data source is or wraps through Spring's proxies:
	 * it has no one server, and asking it for a connection or a pool answers for the
	 * current thread's target only.
	 * @return the routing data source, or {@code null} when there is none
	 */
	static @Nullable AbstractRoutingDataSource router(DataSource dataSource) {
		DataSource layer = dataSource;
		for (int i = 0; i < MAX_LAYERS && layer != null; i++) {
			if (layer instanceof AbstractRoutingDataSource router) {
				return router;
			}
			Object unwrapped = TransactionSynchronizationUtils.unwrapResourceIfNecessary(layer);
			layer = (unwrapped != layer && unwrapped instanceof DataSource inner) ? inner
					: (layer instanceof DelegatingDataSource delegating) ? delegating.getTargetDataSource() : null;
		}
		return null;
	}

	/**
	 * Return the Hikari pool a routing data source routes the current thread to, whose
	 * server a lock taken through the router now was asked of; {@code null} if none.
	 */
	static @Nullable DataSource currentPool(AbstractRoutingDataSource router) {
		try {
			return HikariPools.applicationPool(router);
		}
		catch (IllegalStateException ex) {
			// No target for the current lookup key, and no default.
			return null;
		}
	}

	/**
	 * Check that a duration can bound direct reads, here and for
	 * {@code advisory-lock.diagnosis.timeout}: at least {@link #MIN_TIMEOUT}.
	 * @param timeout the duration
	 * @param setting what is being set, named in the message
	 * @throws IllegalArgumentException if it is shorter
	 */
	public static void checkTimeout(Duration timeout, String setting) {
		Assert.isTrue(timeout.compareTo(MIN_TIMEOUT) >= 0, () -> setting + " must be at least "
				+ MIN_TIMEOUT.toSeconds() + "s (JDBC bounds a query in whole seconds), was " + timeout);
	}

	/** Return the bound on connecting, on each read and on each query. */
	public Duration getTimeout() {
		return this.timeout;
	}

	/** A duration as JDBC's query timeout: whole seconds, rounded up, at least 1. */
	static int seconds(Duration duration) {
		return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (duration.toMillis() + 999) / 1000));
	}

	/** Return the {@linkplain #getTimeout() timeout} as JDBC's query timeout. */
	int queryTimeoutSeconds() {
		return seconds(this.timeout);
	}

	/**
	 * Run one read for a diagnosis on a connection of its own, never waiting for one.
	 * @throws SQLTransientConnectionException if {@link #MAX_CONCURRENT} connections are
	 * already open
	 * @throws SQLException if connecting or the read fails
	 */
	<T> T read(String applicationName, Read<T> read) throws SQLException {
		if (!this.permits.tryAcquire()) {
			throw new SQLTransientConnectionException(
					"all " + MAX_CONCURRENT + " connections outside the pool are " + "in use");
		}
		try (Connection connection = this.connector.connect(applicationName)) {
			return read.on(connection);
		}
		finally {
			this.permits.release();
		}
	}

	/**
	 * Run one read of the endpoint on a connection of its own, waiting for its turn at
	 * most the {@linkplain #getTimeout() timeout}.
	 * @throws SQLTransientConnectionException if no connection was free within the
	 * timeout
	 * @throws SQLException if connecting or the read fails
	 */
	<T> T inspect(String applicationName, Read<T> read) throws SQLException {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		if (!acquire(this.inspections, deadline)) {
			throw new SQLTransientConnectionException("another read of it held the connection outside the pool "
					+ "that serves them for " + this.timeout.toMillis() + "ms");
		}
		try {
			if (!acquire(this.permits, deadline)) {
				throw new SQLTransientConnectionException("diagnoses of busy locks held all " + MAX_CONCURRENT
						+ " connections outside the pool for " + this.timeout.toMillis() + "ms");
			}
			try (Connection connection = this.connector.connect(applicationName)) {
				return read.on(connection);
			}
			finally {
				this.permits.release();
			}
		}
		finally {
			this.inspections.release();
		}
	}

	private static boolean acquire(Semaphore permits, long deadline) throws SQLTransientConnectionException {
		try {
			return permits.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new SQLTransientConnectionException("interrupted while waiting for a connection outside the pool",
					ex);
		}
	}

	/** Remove the parameters this class sets from a JDBC URL's query string. */
	static String withoutOverriddenParameters(String url) {
		int query = url.indexOf('?');
		if (query < 0) {
			return url;
		}
		String kept = Arrays.stream(url.substring(query + 1).split("&"))
			.filter((parameter) -> !parameter.isEmpty())
			.filter((parameter) -> !OVERRIDDEN.contains(parameter.split("=", 2)[0]))
			.collect(Collectors.joining("&"));
		return kept.isEmpty() ? url.substring(0, query) : url.substring(0, query + 1) + kept;
	}

	/** A read on a direct connection. */
	@FunctionalInterface
	interface Read<T> {

		T on(Connection connection) throws SQLException;

	}

	/** Opens one physical connection. */
	@FunctionalInterface
	interface Connector {

		Connection connect(String applicationName) throws SQLException;

	}

	/**
	 * Return how to open a direct connection to the server of the Hikari pool a data
	 * source is or wraps.
	 */
	private static @Nullable Connector connector(DataSource dataSource, Duration timeout) {
		DataSource pool = HikariPools.applicationPool(dataSource);
		HikariPools.Login login = (pool != null) ? HikariPools.login(pool) : null;
		if (login == null) {
			return null;
		}
		Properties properties = login.properties();
		int seconds = seconds(timeout);
		properties.setProperty("connectTimeout", Integer.toString(seconds));
		properties.setProperty("loginTimeout", Integer.toString(seconds));
		// A hung read (a dead server) is cut one second after the query timeout.
		properties.setProperty("socketTimeout", Integer.toString(seconds + 1));
		String url = withoutOverriddenParameters(login.jdbcUrl());
		// Named per read at connect time: no round trip to rename the session.
		return (applicationName) -> {
			Properties named = new Properties();
			named.putAll(properties);
			named.setProperty("ApplicationName", applicationName);
			return DriverManager.getConnection(url, named);
		};
	}

}
