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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.advisorylock.testsupport.PgLocks;

/**
 * {@link DirectConnections} whose connects for the {@code advisorylocks} endpoint stall
 * until the test {@linkplain #release() releases} them, while those of a busy lock's
 * diagnosis connect at once: the way to hold every permit the endpoint's reads may take,
 * and to see what is left to the diagnosis.
 */
public final class StallingEndpointReads {

	/** The {@code application_name} {@link AdvisoryLockInspector} connects with. */
	private static final String ENDPOINT = "advisory-lock endpoint";

	private final CountDownLatch release = new CountDownLatch(1);

	private final DirectConnections connections;

	/**
	 * Create direct connections to a database whose endpoint reads stall.
	 * @param database where every connect goes once it may
	 * @param stalled counted down by each endpoint read as it stalls
	 */
	public StallingEndpointReads(DataSource database, CountDownLatch stalled) {
		this.connections = new DirectConnections((applicationName) -> {
			if (applicationName.equals(ENDPOINT)) {
				stalled.countDown();
				try {
					this.release.await(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return database.getConnection();
		}, Duration.ofSeconds(1));
	}

	/**
	 * Return the direct connections.
	 * @return the connections
	 */
	public DirectConnections connections() {
		return this.connections;
	}

	/**
	 * Return an inspector, as the endpoint has, on these connections.
	 * @return the inspector
	 */
	public AdvisoryLockInspector inspector() {
		return new AdvisoryLockInspector(this.connections, false);
	}

	/**
	 * Let the stalled connects, and every later one, go on.
	 */
	public void release() {
		this.release.countDown();
	}

}
