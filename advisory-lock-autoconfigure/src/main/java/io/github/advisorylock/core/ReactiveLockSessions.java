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

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.LockSessions.Opened;
import io.github.advisorylock.core.LockSessions.OpenedLimit;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The lock sessions of a reactive driver, for {@link ReactiveInvocationLockFlow}: which
 * of the template's resources a request's session opens on, a connection of its own
 * there, and the statements that open its transaction, wait for its keys and end it. Each
 * statement binds its parameters beside its SQL text and signals a failure as the
 * driver's exception translated. Internal: used by the driver adapters, not API.
 *
 * @param <R> the driver's resource (a connection factory)
 * @param <C> the driver's connection
 * @param <S> the driver's lock session
 * @author advisory-lock authors
 */
public interface ReactiveLockSessions<R, C, S extends HeldSession & ReactiveLockSessions.Session> {

	/**
	 * Return the resource a request's session opens on: the one it names or the default
	 * one. It is also what a nested call finds the session's locks by.
	 * @param request the request, of invocation scope
	 * @return the resource
	 */
	R resource(LockRequest request);

	/**
	 * Open a connection of the session's own, straight from the driver.
	 * @param resource the resource
	 * @param request the request
	 * @return the connection
	 */
	Mono<C> connect(R resource, LockRequest request);

	/**
	 * Open the lock's transaction and try its keys, in one round trip, setting the
	 * session's dead-man switch.
	 * @param connection the session's connection
	 * @param request the request
	 * @param keys the keys to take, sorted
	 * @param applicationName the session's name for its transaction
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @return what the try found
	 */
	Mono<Opened> begin(C connection, LockRequest request, LockKeys keys, String applicationName, Duration deadMan);

	/**
	 * Open the lock's transaction and try the permits of a limit, in one round trip,
	 * setting the session's dead-man switch, as {@link #begin} does for keys.
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 * @param applicationName the session's name for its transaction
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @return what the try found
	 */
	Mono<OpenedLimit> beginLimit(C connection, LockRequest request, PermitSlots slots, String applicationName,
			Duration deadMan);

	/**
	 * Send one slice of a wait for any permit of a limit, cancelled on the server when
	 * its subscriber cancels (see {@link PermitSlots}).
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 * @param resumed whether a slice that ran out of time came before
	 * @param slice how long to wait for the chosen slot
	 * @param waited the index of the slot to wait for, from 1
	 * @return the slot taken; empty when the slice ran out of time
	 */
	Mono<Long> waitPermitSlice(C connection, LockRequest request, PermitSlots slots, boolean resumed, Duration slice,
			int waited);

	/**
	 * End a wait for a permit that ran out of time, leaving the session's transaction
	 * usable and holding no permit.
	 * @param connection the session's connection
	 * @param request the request
	 * @param slots the limit's permits
	 * @return completes when done
	 */
	Mono<Void> endPermitWait(C connection, LockRequest request, PermitSlots slots);

	/**
	 * Signal why the try's check refused the lock, read on this failure path only.
	 * @param <T> the element type of the error
	 * @param connection the session's connection
	 * @param request the call, for the message
	 * @return the refusal, signalled
	 */
	<T> Mono<T> refusal(C connection, LockRequest request);

	/**
	 * Wait for the key the try found held and those after it, within the request's
	 * timeout; the wait is cancelled on the server when its subscriber cancels.
	 * @param connection the session's connection
	 * @param request the request
	 * @param keys the keys of the request
	 * @param busyKey the key found held
	 * @return the attempt: acquired, or timed out with the driver's report
	 */
	Mono<LockAttempt> waitLock(C connection, LockRequest request, LockKeys keys, long busyKey);

	/**
	 * Signal the exception of a lock not acquired, naming its holders where the diagnosis
	 * is on.
	 * @param <T> the element type of the error
	 * @param resource the resource
	 * @param connection the session's connection, its transaction aborted after a timeout
	 * @param request the request
	 * @param keys its keys
	 * @param attempt what the attempt found: busy, or timed out
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @return the error
	 */
	<T> Mono<T> busyError(R resource, C connection, LockRequest request, LockKeys keys, LockAttempt attempt,
			@Nullable Duration timeout);

	/**
	 * Make the session of keys just taken.
	 * @param resource what its locks are known by
	 * @param connection its connection
	 * @param request the request
	 * @param keys the keys taken
	 * @param acquisition the acquisition, told when the locks end
	 * @param acquiredNanos {@link System#nanoTime()} before the statement that took the
	 * locks was sent
	 * @param deadMan the session's idle time after which PostgreSQL ends it
	 * @param transactionTimeout the server's {@code transaction_timeout}, or {@code null}
	 * for none
	 * @return the session
	 */
	S session(R resource, C connection, LockRequest request, LockKeys keys, Acquisition acquisition, long acquiredNanos,
			Duration deadMan, @Nullable Duration transactionTimeout);

	/**
	 * End a session: roll its transaction back, which releases the locks before the
	 * subscriber hears the end, then close the connection. A failure is logged, never
	 * signalled: closing releases the locks all the same.
	 * @param connection the session's connection
	 * @param cancelled whether its subscriber cancelled, so that a wait it may be in is
	 * cancelled on the server first (the rollback would queue behind it)
	 * @return the end
	 */
	Mono<Void> close(C connection, boolean cancelled);

	/**
	 * Close the connection of a session whose release rolled its transaction back:
	 * nothing is left to roll back. A failure is logged, never signalled.
	 * @param connection the session's connection
	 * @return the end
	 */
	Mono<Void> closeReleased(C connection);

	/**
	 * What the flow asks of a held session, beside {@link HeldSession}'s state.
	 */
	interface Session {

		/**
		 * Keep the session alive every period until it is released or lost.
		 * @param period the delay between two heartbeats
		 */
		void startHeartbeat(Duration period);

		/**
		 * Stop the heartbeat and roll the session's transaction back, which releases its
		 * locks, then tell the listeners; unless they were lost before. A failure is not
		 * signalled, but makes the locks lost.
		 * @return completes when the locks are released or found lost
		 */
		Mono<Void> release();

		/**
		 * Stop the heartbeat of a session whose subscriber cancelled, and tell the
		 * listeners the locks are released, unless they were lost; closing the connection
		 * then releases them on the server.
		 */
		void cancelled();

	}

}
