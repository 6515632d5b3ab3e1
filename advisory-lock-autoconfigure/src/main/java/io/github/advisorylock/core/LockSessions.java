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

package io.github.advisorylock.core;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

import io.github.advisorylock.HeldLock;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockSql.PermitTry;
import io.github.advisorylock.core.LockSql.TryResult;
import org.jspecify.annotations.Nullable;

/**
 * The lock sessions of a blocking driver, for {@link InvocationLockFlow}: where a
 * request's session opens (its {@link Route}), and the statements that open its
 * transaction, wait for its keys and end it. Each statement binds its parameters beside
 * its SQL text and reports a failure as the driver's exception translated. Internal: used
 * by the driver adapters, not API.
 *
 * @param <C> the driver's connection
 * @param <S> the driver's lock session
 * @author advisory-lock authors
 */
public interface LockSessions<C, S extends HeldSession & LockSessions.Session> extends AutoCloseable {

	/**
	 * Return where the session of a call opens at this call: the connection source of the
	 * database it names or the default one, and what its locks are known by.
	 * @param request the request, of invocation scope
	 * @return the route
	 * @throws IllegalStateException if no connection source can be found for it
	 */
	Route<C> route(LockRequest request);

	/**
	 * Return the most sessions held at once, on every database together: the heartbeat
	 * threads there may be.
	 * @return the bound
	 */
	int maxSessions();

	/**
	 * Open the lock's transaction on its own connection and try its keys, in one round
	 * trip, setting the session's dead-man switch.
	 * @param connection the session's connection
	 * @param request the request
	 * @param keys the keys to take, sorted
	 * @param applicationName the session's name for its transaction
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @param waitBound how long a statement may go unanswered until the lock is held: the
	 * dead-man time and the request's timeout
	 * @return what the try found
	 */
	Opened begin(C connection, LockRequest request, LockKeys keys, String applicationName, Duration deadMan,
			Duration waitBound);

	/**
	 * Open the lock's transaction on its own connection and try the permits of a limit,
	 * in one round trip, setting the session's dead-man switch, as {@link #begin} does
	 * for keys.
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 * @param applicationName the session's name for its transaction
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @param waitBound how long a statement may go unanswered until a permit is held
	 * @return what the try found
	 */
	OpenedLimit beginLimit(C connection, LockRequest request, PermitSlots slots, String applicationName,
			Duration deadMan, Duration waitBound);

	/**
	 * Send one slice of a wait for any permit of a limit (see {@link PermitSlots}).
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 * @param resumed whether a slice that ran out of time came before
	 * @param slice how long to wait for the chosen slot
	 * @param waited the index of the slot to wait for, from 1
	 * @return the slot taken, or {@code null} when the slice ran out of time
	 */
	@Nullable Long waitPermitSlice(C connection, LockRequest request, PermitSlots slots, boolean resumed, Duration slice,
			int waited);

	/**
	 * End a wait for a permit that ran out of time, leaving the session's transaction
	 * usable and holding no permit.
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 */
	void endPermitWait(C connection, LockRequest request, PermitSlots slots);

	/**
	 * Read why the try's check refused the lock (the transaction is READ COMMITTED, so
	 * only recovery is left), on this failure path only.
	 * @param connection the session's connection
	 * @param request the call, for the message
	 * @return the refusal to throw
	 */
	LockTransactionException refusal(C connection, LockRequest request);

	/**
	 * Wait for the key the try found held and those after it, bounded by the request's
	 * timeout.
	 * @param connection the session's connection
	 * @param request the request
	 * @param keys the keys of the request
	 * @param busyKey the key found held
	 * @return {@code null} when they were taken, or the driver's report of a wait that
	 * ran out of time
	 */
	@Nullable Throwable waitLock(C connection, LockRequest request, LockKeys keys, long busyKey);

	/**
	 * Make a session whose keys were just taken ready to be held: after a wait, a
	 * keep-alive replaces the wait's snapshot, and from now on a statement is bounded by
	 * the dead-man time.
	 * @param connection the session's connection
	 * @param request the request
	 * @param keys the keys taken
	 * @param waited whether the keys were taken by a wait
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 */
	void granted(C connection, LockRequest request, LockKeys keys, boolean waited, Duration deadMan);

	/**
	 * Make the exception of a lock not acquired, naming its holders where a diagnosis is
	 * configured (asked here, on the failure path only).
	 * @param connection the session's connection, its transaction aborted after a timeout
	 * @param request the request
	 * @param keys its keys
	 * @param attempt what the attempt found: busy, or timed out
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @return the exception to throw
	 */
	LockBusyException busyException(C connection, LockRequest request, LockKeys keys, LockAttempt attempt,
			@Nullable Duration timeout);

	/**
	 * Close the resources a driver's sessions made (its derived pools, say): each that is
	 * {@link AutoCloseable}, the others too when one fails.
	 * @param resources the resources
	 * @throws Exception the first failure, with the later ones suppressed in it
	 */
	static void closeAll(Iterable<?> resources) throws Exception {
		Exception failure = null;
		for (Object resource : resources) {
			try {
				if (resource instanceof AutoCloseable closeable) {
					closeable.close();
				}
			}
			catch (Exception ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Make the session of keys just taken.
	 * @param connection its connection
	 * @param request the request
	 * @param keys the keys taken
	 * @param target what its locks are known by ({@link Route#target()})
	 * @param acquisition the acquisition, told when the locks end
	 * @param acquiredNanos {@link System#nanoTime()} before the statement that took the
	 * locks was sent
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @param transactionTimeout the server's {@code transaction_timeout}, or {@code null}
	 * for none
	 * @return the session
	 */
	S session(C connection, LockRequest request, LockKeys keys, Object target, Acquisition acquisition,
			long acquiredNanos, Duration deadMan, @Nullable Duration transactionTimeout);

	/**
	 * Roll back a session's transaction that holds nothing the caller keeps.
	 * @param connection the session's connection
	 * @return whether the connection is still usable
	 */
	boolean rollback(C connection);

	/**
	 * Where a session opens: a source of connections of its own, bounded, and what its
	 * locks are known by.
	 *
	 * @param <C> the driver's connection
	 */
	interface Route<C> {

		/**
		 * Return what a nested call on the same database finds the locks by.
		 * @return the innermost resource of the database
		 */
		Object target();

		/**
		 * Return a connection for a session, or fail at once when the bound is reached.
		 * @param namespace the namespace, for messages
		 * @return the connection; give it back with {@link #release}
		 */
		C obtain(String namespace);

		/**
		 * Give a connection back: to its pool when it is usable, or closed for good.
		 * @param connection the connection
		 * @param usable whether its session is still healthy
		 */
		void release(C connection, boolean usable);

	}

	/**
	 * What the flow asks of a held session, beside {@link HeldSession}'s state.
	 */
	interface Session {

		/**
		 * Keep the session alive at a fixed delay until it is released or lost.
		 * @param scheduler where the heartbeats run, one thread per session at most
		 * @param period the delay between two heartbeats
		 */
		void startHeartbeat(ScheduledExecutorService scheduler, Duration period);

		/**
		 * Ask the server now whether the session still holds its locks (see
		 * {@link HeldLock#confirmHeld}).
		 * @param timeout how long to wait for the answer
		 */
		void confirm(Duration timeout);

		/**
		 * Stop the heartbeat and roll the session's transaction back, which releases its
		 * locks; a failure is not thrown, but makes the locks lost.
		 * @return whether the connection is still usable
		 */
		boolean release();

	}

	/**
	 * What a session's opening statements found.
	 *
	 * @param tryResult what the try found
	 * @param transactionTimeout {@code transaction_timeout} as PostgreSQL shows it, or
	 * {@code null} before 17
	 */
	record Opened(TryResult tryResult, @Nullable String transactionTimeout) {

	}

	/**
	 * What the opening statements of a limit's session found.
	 *
	 * @param tried what the try of the permits found
	 * @param transactionTimeout {@code transaction_timeout} as PostgreSQL shows it, or
	 * {@code null} before 17
	 */
	record OpenedLimit(PermitTry tried, @Nullable String transactionTimeout) {

	}

}
