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
 * outside the pool: for the reads of {@code pg_locks} that must answer when the pool is
 * exhausted, which is often when locks pile up (the diagnosis of a timeout, the
 * {@code advisorylocks} endpoint).
 *
 * <p>
 * This class owns both bounds of those reads, so that they hold wherever it is used:
 * <ul>
 * <li>at most {@link #MAX_CONCURRENT} connections at once, shared by every user of one
 * instance; one more for a diagnosis is refused at once rather than queued, so a storm of
 * timeouts cannot open a storm of connections;</li>
 * <li>at most {@link #MAX_INSPECTIONS} of them for the endpoint's reads
 * ({@link #inspect}), which queue for their turn for at most the timeout: however often
 * the endpoint is polled, a diagnosis always finds a connection that no read of the
 * endpoint holds;</li>
 * <li>the {@linkplain #getTimeout() timeout}, which bounds connecting, logging in, every
 * read on the socket and, through {@link #queryTimeoutSeconds()}, each query.</li>
 * </ul>
 * pgjdbc lets a parameter in the URL win over the same property passed beside it, so the
 * bounds and the application name are removed from the pool's URL before they are set as
 * properties: a pool URL with {@code socketTimeout=0} cannot make a direct read
 * unbounded.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public final class DirectConnections {

	/**
	 * Most direct connections open at once; a diagnosis beyond them is refused rather
	 * than queued.
	 */
	public static final int MAX_CONCURRENT = 2;

	/**
	 * Most of them open at once for the endpoint's reads, so that the rest stays with the
	 * diagnosis.
	 */
	public static final int MAX_INSPECTIONS = 1;

	/** The shortest timeout: JDBC bounds a query in whole seconds. */
	public static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);

	/** The default timeout. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);

	/** The URL parameters set here, which would otherwise override the properties. */
	private static final Set<String> OVERRIDDEN = Set.of("connectTimeout", "loginTimeout", "socketTimeout",
			"ApplicationName");

	/**
	 * The most wrappers followed, so that a wrapper that (wrongly) wraps itself cannot
	 * loop.
	 */
	private static final int MAX_LAYERS = 16;

	/** Opens a connection with the given {@code application_name}. */
	private final Connector connector;

	private final Duration timeout;

	private final Semaphore permits = new Semaphore(MAX_CONCURRENT);

	/**
	 * Taken before one of {@link #permits} by the endpoint's reads; fair, so that they
	 * are served in turn.
	 */
	private final Semaphore inspections = new Semaphore(MAX_INSPECTIONS, true);

	/**
	 * Create direct connections from any source, for tests: the application name is not
	 * set.
	 */
	DirectConnections(DataSource source, Duration timeout) {
		this((applicationName) -> source.getConnection(), timeout);
	}

	/**
	 * Create direct connections opened by the given connector.
	 */
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
	 * with a JDBC URL, or is an {@link AbstractRoutingDataSource} (which has no one
	 * server: pass one of its targets)
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
	 * Return the routing data source a data source is or wraps, through Spring's proxies
	 * ({@code TransactionAwareDataSourceProxy}, {@code LazyConnectionDataSourceProxy},
	 * any {@code DelegatingDataSource}): such a data source has no one server, and asking
	 * it, or a wrapper of it, for a connection or a pool answers for the target of the
	 * current thread only.
	 * @param dataSource the data source
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
	 * Return the Hikari pool a routing data source routes the current thread to: its
	 * server is the one a lock taken through the router now was asked of.
	 * @param router the routing data source
	 * @return the pool, or {@code null} when the current target is not a Hikari pool, or
	 * the router has none for the current lookup key
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
	 * Check that a duration can bound direct reads: at least {@link #MIN_TIMEOUT}. The
	 * one home of this rule, for the constructors here and for
	 * {@code advisory-lock.diagnosis.timeout}.
	 * @param timeout the duration
	 * @param setting what is being set, named in the message
	 * @throws IllegalArgumentException if it is shorter
	 */
	public static void checkTimeout(Duration timeout, String setting) {
		Assert.isTrue(timeout.compareTo(MIN_TIMEOUT) >= 0, () -> setting + " must be at least "
				+ MIN_TIMEOUT.toSeconds() + "s (JDBC bounds a query in whole seconds), was " + timeout);
	}

	/**
	 * Return the bound on connecting, on each read and on each query.
	 * @return the timeout
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Return a duration as JDBC's query timeout: whole seconds, rounded up, at least 1.
	 * @param duration the duration
	 * @return the seconds
	 */
	static int seconds(Duration duration) {
		return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (duration.toMillis() + 999) / 1000));
	}

	/**
	 * Return the {@linkplain #getTimeout() timeout} as JDBC's query timeout.
	 * @return the seconds
	 */
	int queryTimeoutSeconds() {
		return seconds(this.timeout);
	}

	/**
	 * Open a connection for a diagnosis, run one read on it and close it, never waiting
	 * for a connection.
	 * @param applicationName the {@code application_name} of the session, for an operator
	 * @param read the read
	 * @return what it returned
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
	 * Open a connection for a read of the endpoint, run the read on it and close it: at
	 * most {@link #MAX_INSPECTIONS} at once, each waiting for its turn at most the
	 * {@linkplain #getTimeout() timeout}.
	 * @param applicationName the {@code application_name} of the session, for an operator
	 * @param read the read
	 * @return what it returned
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

	/**
	 * Remove the parameters this class sets from a JDBC URL's query string.
	 * @param url the JDBC URL
	 * @return the URL without them
	 */
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

	/**
	 * A read on a direct connection.
	 *
	 * @param <T> what it returns
	 */
	@FunctionalInterface
	interface Read<T> {

		T on(Connection connection) throws SQLException;

	}

	/**
	 * Opens one physical connection.
	 */
	@FunctionalInterface
	interface Connector {

		Connection connect(String applicationName) throws SQLException;

	}

	/**
	 * Return how to open a direct connection to the server of the Hikari pool a data
	 * source is or wraps, with every read bounded by the timeout.
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
		// A read that hangs (a dead server) is cut after the query timeout plus one
		// second of grace.
		properties.setProperty("socketTimeout", Integer.toString(seconds + 1));
		String url = withoutOverriddenParameters(login.jdbcUrl());
		// Named at connect time, per read, so that one source serves the diagnosis and
		// the endpoint without a round trip to rename the session.
		return (applicationName) -> {
			Properties named = new Properties();
			named.putAll(properties);
			named.setProperty("ApplicationName", applicationName);
			return DriverManager.getConnection(url, named);
		};
	}

}
