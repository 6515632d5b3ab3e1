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

import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Counts the network round trips pgjdbc makes, by the Sync messages it logs: every
 * extended-protocol exchange ends with one Sync, after which the driver waits for the
 * server.
 */
public final class RoundTripCounter implements AutoCloseable {

	private final Logger logger = Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");

	private final Level previousLevel = this.logger.getLevel();

	private final AtomicInteger syncs = new AtomicInteger();

	private final Thread owner = Thread.currentThread();

	private final Handler handler = new Handler() {

		@Override
		public void publish(LogRecord record) {
			// Only this thread's: a pool's housekeeping on other threads may talk to the
			// server meanwhile.
			if (Thread.currentThread() == RoundTripCounter.this.owner && record.getMessage() != null
					&& record.getMessage().contains("FE=> Sync")) {
				RoundTripCounter.this.syncs.incrementAndGet();
			}
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

	};

	public RoundTripCounter() {
		this.handler.setLevel(Level.ALL);
		this.logger.addHandler(this.handler);
		this.logger.setLevel(Level.FINEST);
	}

	/**
	 * Return the round trips the creating thread made since the last reset.
	 * @return the count
	 */
	public int roundTrips() {
		return this.syncs.get();
	}

	public void reset() {
		this.syncs.set(0);
	}

	@Override
	public void close() {
		this.logger.removeHandler(this.handler);
		this.logger.setLevel(this.previousLevel);
	}

}
