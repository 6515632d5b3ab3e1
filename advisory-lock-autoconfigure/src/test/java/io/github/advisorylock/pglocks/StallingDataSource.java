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
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.advisorylock.testsupport.PgLocks;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A source of direct connections whose connects stall, as they would against a slow
 * server, until the test {@linkplain #release() releases} them: the way to fill every
 * permit of {@link DirectConnections} at once.
 */
final class StallingDataSource extends DelegatingDataSource {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	private final CountDownLatch connecting;

	private final CountDownLatch release = new CountDownLatch(1);

	private final boolean connectOnRelease;

	private StallingDataSource(DataSource target, int stalls, boolean connectOnRelease) {
		super(target);
		this.connecting = new CountDownLatch(stalls);
		this.connectOnRelease = connectOnRelease;
	}

	/**
	 * Return a source whose connects stall, then connect to the target once released.
	 * @param target the data source to connect to
	 * @param stalls how many connects {@link #awaitStalled()} waits for
	 * @return the source
	 */
	static StallingDataSource thenConnecting(DataSource target, int stalls) {
		return new StallingDataSource(target, stalls, true);
	}

	/**
	 * Return a source whose connects stall, then fail with {@code stalled connect} once
	 * released.
	 * @param target the data source (never connected to)
	 * @param stalls how many connects {@link #awaitStalled()} waits for
	 * @return the source
	 */
	static StallingDataSource thenFailing(DataSource target, int stalls) {
		return new StallingDataSource(target, stalls, false);
	}

	@Override
	public Connection getConnection() throws SQLException {
		this.connecting.countDown();
		try {
			this.release.await(HANG_SECONDS, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (!this.connectOnRelease) {
			throw new SQLException("stalled connect");
		}
		return super.getConnection();
	}

	/**
	 * Wait until the given number of connects stall.
	 * @return whether they did within {@link PgLocks#HANG_TIMEOUT}
	 * @throws InterruptedException if interrupted while waiting
	 */
	boolean awaitStalled() throws InterruptedException {
		return this.connecting.await(HANG_SECONDS, TimeUnit.SECONDS);
	}

	/**
	 * Let the stalled connects, and every later one, go on.
	 */
	void release() {
		this.release.countDown();
	}

}
