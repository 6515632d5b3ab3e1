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

package io.github.advisorylock.core.session;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.IssuedToken;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * A lock session on the reactive stack, kept alive by a heartbeat while the call's
 * publisher runs, its connection closed at the end; {@link HeldSession} decides when it
 * is lost, the driver supplies the statements.
 *
 * @author advisory-lock authors
 */
public abstract class ReactiveLockSession extends HeldSession {

	/**
	 * Where heartbeats tick. A cancelled tick stays queued until due, so that stopping a
	 * heartbeat, on the driver's event loop, never waits for the queue's lock.
	 */
	private static final Scheduler HEARTBEATS = heartbeats();

	/**
	 * How long an issued fencing token is kept: for the hold, which it never outlives.
	 */
	private static final Duration KEPT = Duration.ofMillis(Long.MAX_VALUE);

	private volatile @Nullable Disposable heartbeat;

	/** The marker, taken at the first fenced write and then the same for every one. */
	private final AtomicReference<@Nullable Mono<SessionMarker>> marker = new AtomicReference<>();

	/**
	 * The fencing token, issued at the first ask and kept; a failed issue is not kept.
	 */
	private final AtomicReference<@Nullable Mono<Long>> fencingToken = new AtomicReference<>();

	/**
	 * Create the session of a call, just acquired (see {@link HeldSession}).
	 * @param mode the mode its keys are held in
	 * @param keys its keys
	 * @param resource the application's connection factory, which nested calls find it by
	 * @param acquisition the listeners' view of the acquisition
	 * @param acquiredNanos {@link System#nanoTime()} before the lock statement was sent
	 * @param deadMan the idle time after which PostgreSQL ends the session
	 * @param transactionTimeout the server's {@code transaction_timeout}, or {@code null}
	 */
	protected ReactiveLockSession(String namespace, LockMode mode, LockKeys keys, Object resource,
			Acquisition acquisition, long acquiredNanos, Duration deadMan, @Nullable Duration transactionTimeout) {
		super(namespace, mode, keys, resource, acquisition, acquiredNanos, deadMan, transactionTimeout);
	}

	/** Send the session's keep-alive statement. */
	protected abstract Mono<?> keepAlive();

	/**
	 * Take a marker for the session, in its transaction (see {@link FenceSql#MARK}).
	 */
	protected abstract Mono<SessionMarker> mark();

	/** Roll the session's transaction back, which releases its locks. */
	protected abstract Mono<Void> rollback();

	/**
	 * Issue the session's fencing token ({@link FenceSql#TOKEN}) in a transaction of its
	 * own, on a connection other than the session's, and commit it.
	 * @return what the statement found
	 */
	protected abstract Mono<IssuedToken> issueToken(SessionMarker marker);

	/**
	 * Return the session's marker, which a fenced write probes, taken at the first ask; a
	 * session that cannot take one is lost.
	 * @return the marker; a {@link io.github.advisorylock.LockLostException} if the
	 * session was lost before it took one, an {@link IllegalStateException} if it was
	 * released before (a publisher still running after its call)
	 */
	public Mono<SessionMarker> marker() {
		Mono<SessionMarker> marker = this.marker.get();
		if (marker == null) {
			Mono<SessionMarker> taking = Mono
				.defer(() -> (isHeld() && !isLost()) ? mark() : Mono.<SessionMarker>empty())
				.onErrorResume((ex) -> {
					lost(ex, "its connection failed when a fenced write asked it for its marker (" + ex + ")");
					return Mono.empty();
				})
				.cache();
			Mono<SessionMarker> first = this.marker.compareAndExchange(null, taking);
			marker = (first != null) ? first : taking;
		}
		return marker.switchIfEmpty(Mono.defer(() -> {
			checkHeld();
			return Mono.error(LockFailures.releasedBeforeFencedWrite(description()));
		}));
	}

	/**
	 * Return the session's fencing token, issued at the first ask, then the same for
	 * every subscriber: {@link #fencingToken()} without blocking.
	 * @return the token; a {@link io.github.advisorylock.LockLostException} if the lock
	 * was found lost, an {@link IllegalStateException} if its call has ended
	 */
	public Mono<Long> fencingTokenMono() {
		Mono<Long> token = this.fencingToken.get();
		if (token == null) {
			Mono<Long> issuing = Mono.defer(() -> {
				checkTokenAllowed();
				return marker().flatMap((marker) -> issueToken(marker).map((issued) -> checkIssued(issued, marker)));
			}).cache((value) -> KEPT, (ex) -> Duration.ZERO, () -> Duration.ZERO);
			Mono<Long> first = this.fencingToken.compareAndExchange(null, issuing);
			token = (first != null) ? first : issuing;
		}
		// No call once issued: a loss already known still fails it.
		return Mono.fromRunnable(this::checkHeld).then(token);
	}

	@Override
	public long fencingToken() {
		throw new IllegalStateException("Advisory lock " + description() + " is a reactive one: ask "
				+ "ReactiveAdvisoryLockOperations.fencingToken(), a Mono, inside the locked publisher, for its fencing "
				+ "token; the blocking LockHandle.fencingToken() would block a Reactor thread");
	}

	/**
	 * Keep the session alive every period until it is released or lost. A heartbeat the
	 * server has not confirmed within the dead-man interval counts as failed.
	 * @param period the delay between two heartbeats
	 */
	public void startHeartbeat(Duration period) {
		this.heartbeat = Flux.interval(period, period, HEARTBEATS)
			// Drop ticks while a heartbeat is out: queued, they would fire in a burst.
			.onBackpressureDrop()
			.concatMap((tick) -> heartbeat(), 0)
			.subscribe(null, (ex) -> lost(ex, "its connection failed a heartbeat (" + ex + ")"));
	}

	/**
	 * Send a heartbeat now and block the calling thread, never a Reactor one, until it is
	 * answered or has failed, which makes the session lost.
	 */
	@Override
	protected void heartbeatNow() {
		if (!isHeld() || isLost()) {
			return;
		}
		heartbeat().onErrorResume((ex) -> {
			lost(ex, "its connection failed a heartbeat (" + ex + ")");
			return Mono.empty();
		}).block();
	}

	/**
	 * One heartbeat, timed from its assembly: not confirmed within the dead-man interval,
	 * it fails.
	 */
	private Mono<?> heartbeat() {
		long sent = System.nanoTime();
		return keepAlive().timeout(deadMan()).doOnSuccess((done) -> confirmed(sent));
	}

	/**
	 * Stop the heartbeat, roll the transaction back, which releases the locks, and tell
	 * the listeners. The rollback is bounded by the dead-man interval, as a heartbeat is;
	 * one that fails or times out is not signalled but makes the locks lost.
	 * @return completes when the locks are released or found lost
	 */
	public Mono<Void> release() {
		return Mono.defer(() -> {
			stopHeartbeat();
			if (!releasing()) {
				return Mono.empty();
			}
			return rollback().timeout(deadMan()).doOnSuccess((done) -> released()).onErrorResume((ex) -> {
				lostAtRelease(ex);
				return Mono.empty();
			});
		});
	}

	/**
	 * Stop the heartbeat of a session whose subscriber cancelled, and tell the listeners
	 * the locks are released, unless lost: closing the connection, which nobody waits
	 * for, releases them on the server.
	 */
	public void cancelled() {
		stopHeartbeat();
		if (releasing()) {
			released();
		}
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

	private static Scheduler heartbeats() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("advisory-lock-r2dbc-heartbeat-");
		threads.setDaemon(true);
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
		executor.setRemoveOnCancelPolicy(false);
		executor.setKeepAliveTime(1, TimeUnit.MINUTES);
		executor.allowCoreThreadTimeOut(true);
		return Schedulers.fromExecutorService(executor, "advisory-lock-r2dbc-heartbeat");
	}

}
