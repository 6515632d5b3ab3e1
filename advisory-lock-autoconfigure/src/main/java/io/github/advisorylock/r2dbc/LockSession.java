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

package io.github.advisorylock.r2dbc;

import java.time.Duration;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.HeldSession;
import io.github.advisorylock.core.LockKeys;
import io.r2dbc.spi.Connection;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * A lock session over R2DBC: the locks of one invocation-scoped call, held by the
 * transaction of their own connection, kept alive by a heartbeat while the call's
 * publisher runs. The connection is closed when it ends, which ends the session and its
 * locks. When it counts as lost is {@link HeldSession}'s.
 *
 * @author advisory-lock authors
 */
final class LockSession extends HeldSession {

	private final Connection connection;

	private final String heartbeatSql;

	private final Duration deadMan;

	private volatile @Nullable Disposable heartbeat;

	/**
	 * Create the lock of a call, just acquired.
	 * @param resource the application's connection factory its connection stands for:
	 * what a nested call finds it by
	 * @param acquiredNanos {@link System#nanoTime()} before the statement that took the
	 * lock was sent
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @param transactionTimeout the server's {@code transaction_timeout}, or {@code null}
	 */
	LockSession(String namespace, LockMode mode, LockKeys keys, Object resource, Connection connection,
			Acquisition acquisition, String heartbeatSql, long acquiredNanos, Duration deadMan,
			@Nullable Duration transactionTimeout) {
		super(namespace, mode, keys, resource, acquisition, acquiredNanos, deadMan, transactionTimeout);
		this.connection = connection;
		this.heartbeatSql = heartbeatSql;
		this.deadMan = deadMan;
	}

	/**
	 * Send a heartbeat every period until the lock is released or lost; one that the
	 * server has not confirmed within the dead-man interval counts as failed.
	 * @param period the heartbeat
	 */
	void startHeartbeat(Duration period) {
		this.heartbeat = Flux.interval(period, period)
			// A tick while the previous heartbeat is still out is dropped, not queued.
			.onBackpressureDrop()
			.concatMap((tick) -> {
				long sent = System.nanoTime();
				return LockSessionStatements.keepAlive(this.connection, this.heartbeatSql)
					.timeout(this.deadMan)
					.doOnSuccess((done) -> confirmed(sent));
			}, 0)
			.subscribe(null, (ex) -> lost(ex, "its connection failed a heartbeat (" + ex + ")"));
	}

	/**
	 * Stop the heartbeat and tell the listeners the locks are released, unless they were
	 * lost; closing the connection then releases them on the server.
	 */
	void release() {
		stopHeartbeat();
		markReleased();
	}

	@Override
	protected void stopHeartbeat() {
		Disposable heartbeat = this.heartbeat;
		if (heartbeat != null) {
			heartbeat.dispose();
		}
	}

}
