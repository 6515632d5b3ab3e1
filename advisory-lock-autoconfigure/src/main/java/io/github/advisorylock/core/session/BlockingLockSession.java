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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.IssuedToken;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A lock session on the blocking stack, kept alive by a heartbeat while the call runs and
 * released by rolling its transaction back at the end; {@link HeldSession} decides when
 * it is lost, the driver supplies the statements, each bounded against a dead link. The
 * heartbeat runs on a scheduler thread, the rest on the caller's, all under
 * {@link #connectionLock()}, a {@link ReentrantLock} so that a confirmation can stop
 * waiting for it in time.
 *
 * @author advisory-lock authors
 */
public abstract class BlockingLockSession extends HeldSession {

	/** Taken at the first fenced write, and held by the transaction until it ends. */
	private @Nullable SessionMarker marker;

	private final ReentrantLock connectionLock = new ReentrantLock();

	private volatile @Nullable ScheduledFuture<?> heartbeat;

	/** One per hold, issued at the first ask. */
	private volatile @Nullable Long fencingToken;

	private final ReentrantLock tokenLock = new ReentrantLock();

	/**
	 * Create the session of a call, just acquired (see {@link HeldSession}).
	 * @param mode the mode its keys are held in
	 * @param keys its keys
	 * @param resource what a nested call on the same database finds it by
	 * @param acquisition the listeners' view of the acquisition
	 * @param acquiredNanos {@link System#nanoTime()} before the lock statement was sent
	 * @param deadMan the idle time after which PostgreSQL ends the session
	 * @param transactionTimeout the server's {@code transaction_timeout}, or {@code null}
	 */
	protected BlockingLockSession(String namespace, LockMode mode, LockKeys keys, Object resource,
			Acquisition acquisition, long acquiredNanos, Duration deadMan, @Nullable Duration transactionTimeout) {
		super(namespace, mode, keys, resource, acquisition, acquiredNanos, deadMan, transactionTimeout);
	}

	/**
	 * Send the session's keep-alive statement.
	 * @param within the bound on the answer, or {@code null} for a heartbeat's
	 * @throws Exception if it fails or is not answered in time
	 */
	protected abstract void keepAlive(@Nullable Duration within) throws Exception;

	/** Take a marker for the session, in its transaction (see {@link FenceSql#MARK}). */
	protected abstract SessionMarker mark() throws Exception;

	/** Roll the session's transaction back, which releases its locks. */
	protected abstract void rollback() throws Exception;

	/**
	 * Issue the session's fencing token ({@link FenceSql#TOKEN}) in a transaction of its
	 * own, on a connection other than the session's, and commit it.
	 * @return what the statement found
	 */
	protected abstract IssuedToken issueToken(SessionMarker marker);

	/**
	 * Return the session's marker, which a fenced write probes, taken at the first ask; a
	 * session that cannot take one is lost.
	 * @throws LockLostException if the session was lost before it took one
	 * @throws IllegalStateException if released first (a wrapped task outliving its call)
	 */
	public SessionMarker marker() {
		this.connectionLock.lock();
		try {
			if (this.marker == null && isHeld() && !isLost()) {
				try {
					this.marker = mark();
				}
				catch (Exception ex) {
					lost(ex, "its connection failed when a fenced write asked it for its marker (" + ex + ")");
				}
			}
			if (this.marker == null) {
				checkHeld();
				throw LockFailures.releasedBeforeFencedWrite(description());
			}
			return this.marker;
		}
		finally {
			this.connectionLock.unlock();
		}
	}

	@Override
	public long fencingToken() {
		Long token = this.fencingToken;
		if (token != null) {
			// No call: a loss already known still fails it.
			checkHeld();
			return token;
		}
		this.tokenLock.lock();
		try {
			token = this.fencingToken;
			if (token == null) {
				token = issueFencingToken();
				this.fencingToken = token;
			}
			return token;
		}
		finally {
			this.tokenLock.unlock();
		}
	}

	private long issueFencingToken() {
		checkTokenAllowed();
		SessionMarker marker = marker();
		return checkIssued(issueToken(marker), marker);
	}

	/**
	 * Return the lock that serializes the statements on the session's connection. Held,
	 * it stalls the heartbeat as a paused process would (a test holds it so).
	 */
	public ReentrantLock connectionLock() {
		return this.connectionLock;
	}

	/**
	 * Keep the session alive at a fixed delay until it is released or lost.
	 * @param scheduler where the heartbeats run, one thread per session at most
	 * @param period the delay between two heartbeats
	 */
	public void startHeartbeat(ScheduledExecutorService scheduler, Duration period) {
		this.heartbeat = scheduler.scheduleWithFixedDelay(this::beat, period.toMillis(), period.toMillis(),
				TimeUnit.MILLISECONDS);
	}

	@Override
	protected void heartbeatNow() {
		beat();
	}

	private void beat() {
		this.connectionLock.lock();
		try {
			if (!isHeld() || isLost()) {
				return;
			}
			long sent = System.nanoTime();
			try {
				keepAlive(null);
				confirmed(sent);
			}
			catch (Exception ex) {
				lost(ex, "its connection failed a heartbeat (" + ex + ")");
			}
		}
		finally {
			this.connectionLock.unlock();
		}
	}

	/**
	 * Ask the server, after any heartbeat in flight, whether the session still holds its
	 * locks ({@link io.github.advisorylock.HeldLock#confirmHeld}); no answer within the
	 * timeout counts as a loss, as on a frozen link.
	 * @param timeout how long to wait for the answer
	 * @throws LockLostException if the locks were lost, or are found lost now
	 * @throws IllegalStateException if they were released
	 */
	public void confirm(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		boolean locked;
		try {
			locked = this.connectionLock.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			// Not an answer about the lock: keep the interrupt, and say what is known.
			Thread.currentThread().interrupt();
			checkHeld();
			return;
		}
		if (!locked) {
			lost(new TimeoutException("No answer within " + timeout), "its connection did not answer a "
					+ "confirmation within " + timeout + ": a heartbeat before it was still waiting for the server");
			checkHeld();
			return;
		}
		try {
			checkHeld();
			Assert.state(isHeld(), () -> "Advisory lock " + description() + " was released: nothing to confirm");
			long sent = System.nanoTime();
			try {
				keepAlive(Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(1), deadline - sent)));
				confirmed(sent);
			}
			catch (Exception ex) {
				lost(ex, "its connection failed a confirmation within " + timeout + " (" + ex + ")");
			}
		}
		finally {
			this.connectionLock.unlock();
		}
		checkHeld();
	}

	/**
	 * Stop the heartbeat and roll the transaction back, which releases the locks. A
	 * failed rollback is not thrown, so as not to hide the call's own outcome: it counts
	 * as a loss, which the call reports once it has ended.
	 * @return whether the connection is still usable
	 */
	public boolean release() {
		this.connectionLock.lock();
		try {
			stopHeartbeat();
			if (!releasing()) {
				// Lost, perhaps on this side only: dropping the connection releases them.
				return false;
			}
			try {
				rollback();
			}
			catch (Exception ex) {
				lostAtRelease(ex);
				return false;
			}
			released();
			return true;
		}
		finally {
			this.connectionLock.unlock();
		}
	}

	@Override
	protected void stopHeartbeat() {
		ScheduledFuture<?> heartbeat = this.heartbeat;
		if (heartbeat != null) {
			heartbeat.cancel(false);
		}
	}

}
