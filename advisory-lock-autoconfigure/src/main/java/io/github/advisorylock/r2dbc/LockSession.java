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
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.FenceSql.SessionMarker;
import io.github.advisorylock.core.HeldSession;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.ReactiveLockSessions;
import io.r2dbc.spi.Connection;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * A lock session over R2DBC: the locks of one invocation-scoped call, held by the
 * transaction of their own connection, kept alive by a heartbeat while the call's
 * publisher runs. The connection is closed when it ends, which ends the session and its
 * locks. When it counts as lost is {@link HeldSession}'s.
 *
 * @author advisory-lock authors
 */
final class LockSession extends HeldSession implements ReactiveLockSessions.Session {

	/**
	 * Where the heartbeats tick: an executor that does not remove a cancelled task from
	 * its queue, so that stopping a heartbeat, which happens on the driver's event loop
	 * when the work ends, never waits for the queue's lock (a cancelled tick is dropped
	 * when it comes due). Daemon threads, one at most, which end when idle.
	 */
	private static final Scheduler HEARTBEATS = heartbeats();

	private final Connection connection;

	private final String heartbeatSql;

	private volatile @Nullable Disposable heartbeat;

	/** The marker, taken at the first fenced write and then the same for every one. */
	private final AtomicReference<@Nullable Mono<SessionMarker>> marker = new AtomicReference<>();

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
	}

	/**
	 * Return the session's marker, which a fenced write probes: taken on the session's
	 * connection, in its transaction, the first time it is asked for. A session that
	 * cannot take one is lost.
	 * @return the marker; empty if the session was released or lost before it took one
	 */
	Mono<SessionMarker> marker() {
		Mono<SessionMarker> marker = this.marker.get();
		if (marker != null) {
			return marker;
		}
		Mono<SessionMarker> taking = Mono
			.defer(() -> (isHeld() && !isLost()) ? LockSessionStatements.mark(this.connection)
					: Mono.<SessionMarker>empty())
			.onErrorResume((ex) -> {
				lost(ex, "its connection failed when a fenced write asked it for its marker (" + ex + ")");
				return Mono.empty();
			})
			.cache();
		Mono<SessionMarker> first = this.marker.compareAndExchange(null, taking);
		return (first != null) ? first : taking;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A heartbeat the server has not confirmed within the dead-man interval counts as
	 * failed.
	 */
	@Override
	public void startHeartbeat(Duration period) {
		this.heartbeat = Flux.interval(period, period, HEARTBEATS)
			// A tick while the previous heartbeat is still out is dropped, not queued.
			.onBackpressureDrop()
			.concatMap((tick) -> {
				long sent = System.nanoTime();
				return LockSessionStatements.keepAlive(this.connection, this.heartbeatSql)
					.timeout(deadMan())
					.doOnSuccess((done) -> confirmed(sent));
			}, 0)
			.subscribe(null, (ex) -> lost(ex, "its connection failed a heartbeat (" + ex + ")"));
	}

	@Override
	public void release() {
		stopHeartbeat();
		markReleased();
	}

	private static Scheduler heartbeats() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("advisory-lock-r2dbc-heartbeat-");
		threads.setDaemon(true);
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
		executor.setRemoveOnCancelPolicy(false);
		executor.setKeepAliveTime(1, TimeUnit.MINUTES);
		executor.allowCoreThreadTimeOut(true);
		return Schedulers.fromExecutorService(executor, "advisory-lock-r2dbc-heartbeat");
	}

	/**
	 * Return the task unchanged: a reactive lock's work, and its fenced writes, find the
	 * lock in the subscriber's context, not on a thread.
	 */
	@Override
	public Runnable wrap(Runnable task) {
		return task;
	}

	/**
	 * Return the task unchanged, as {@link #wrap(Runnable)} does.
	 */
	@Override
	public <T> Callable<T> wrap(Callable<T> task) {
		return task;
	}

	@Override
	protected void stopHeartbeat() {
		Disposable heartbeat = this.heartbeat;
		if (heartbeat != null) {
			heartbeat.dispose();
		}
	}

}
