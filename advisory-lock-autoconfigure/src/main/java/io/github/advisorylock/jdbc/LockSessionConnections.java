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
import java.util.concurrent.Semaphore;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.CannotGetJdbcConnectionException;

/**
 * The connections of {@link LockSession lock sessions}, which hold invocation-scoped
 * locks: from a source of their own, never the application's pool that the work itself
 * needs, and at most a fixed number at once. Reaching the bound is an error at once
 * rather than a wait, so that a job can never wait for a connection that another job
 * holds.
 */
final class LockSessionConnections implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockSessionConnections.class);

	/** The property that sets the bound, named in the error that reaching it raises. */
	static final String MAX_CONNECTIONS_PROPERTY = "advisory-lock.invocation.max-connections";

	private final DataSource dataSource;

	private final boolean ownsSource;

	private final int maxConnections;

	private final Semaphore permits;

	/**
	 * Create the connections.
	 * @param dataSource the source: one of the user's, or one derived from the
	 * application's pool
	 * @param ownsSource whether the source was made for these connections alone, and is
	 * closed with them
	 * @param permits the bound, shared by the connections of every pool a routing
	 * {@code DataSource} sends calls to
	 * @param maxConnections the most connections at once: the permits there are
	 */
	LockSessionConnections(DataSource dataSource, boolean ownsSource, Semaphore permits, int maxConnections) {
		this.dataSource = dataSource;
		this.ownsSource = ownsSource;
		this.maxConnections = maxConnections;
		this.permits = permits;
	}

	/**
	 * Return a connection for the locks of one call.
	 * @param namespace the namespace, for messages
	 * @return the connection; give it back with {@link #release}
	 * @throws CannotGetJdbcConnectionException if the bound is reached or the connection
	 * cannot be made
	 */
	Connection obtain(String namespace) {
		if (!this.permits.tryAcquire()) {
			throw new CannotGetJdbcConnectionException("Invocation-scoped advisory lock '" + namespace + "' needs a "
					+ "connection of its own, and all " + this.maxConnections + " are holding other locks: raise "
					+ MAX_CONNECTIONS_PROPERTY + ", or run fewer invocation-scoped calls at once");
		}
		try {
			return this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			this.permits.release();
			throw new CannotGetJdbcConnectionException("Invocation-scoped advisory lock '" + namespace + "' could not "
					+ "get its connection from "
					+ (this.ownsSource ? "the pool derived from the application's" : "the @InvocationLockDataSource"),
					ex);
		}
		catch (RuntimeException ex) {
			this.permits.release();
			throw ex;
		}
	}

	/**
	 * Give a connection back: to its pool when it is usable, or closed for good when not.
	 * @param connection the connection
	 * @param usable whether its session is still healthy
	 */
	void release(Connection connection, boolean usable) {
		try {
			if (!usable) {
				// A pool would lend a dead session again; abort() makes Hikari evict it,
				// and closes a plain one.
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

	/**
	 * Return the most connections at once.
	 * @return the bound
	 */
	int maxConnections() {
		return this.maxConnections;
	}

	@Override
	public void close() throws Exception {
		if (this.ownsSource && this.dataSource instanceof AutoCloseable closeable) {
			closeable.close();
		}
	}

}
