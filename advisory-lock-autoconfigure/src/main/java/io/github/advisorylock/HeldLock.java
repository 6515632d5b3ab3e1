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
package io.github.advisorylock;

import java.time.Duration;

/**
 * The {@link LockScope#INVOCATION invocation-scoped} locks an
 * {@link AdvisoryLockOperations#acquire acquire} call took, held by a connection of their
 * own until {@link #release()}: for code whose lock outlives one method call, such as an
 * adapter to another library's lock API.
 *
 * <p>
 * The locks belong to no thread: any thread may check or release them, the thread that
 * took them does not see them through {@link AdvisoryLockOperations#checkHeld()},
 * {@link AdvisoryLockOperations#currentHandle()} or
 * {@link AdvisoryLockOperations#isHeld}, and an annotated call on that thread is not
 * re-entrant through them, unless it runs in a task {@linkplain #wrap(Runnable) wrapped}
 * in the lock (whose transactions are then fenced writes too). While held, a heartbeat
 * keeps their session alive, and PostgreSQL releases them when the process dies or stops
 * sending heartbeats for three of them, as for an annotated method. A lock never released
 * holds its connection, one of {@code advisory-lock.invocation.max-connections}, until
 * the application stops.
 *
 * <pre class="code">
 * try (HeldLock lock = this.locks.acquire(request).orElseThrow()) {
 *     // work under the lock, checking lock.checkHeld() at safe points
 * }
 * </pre>
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public interface HeldLock extends LockHandle, AutoCloseable {

	/**
	 * Ask PostgreSQL now whether the locks are still held, rather than rely on the last
	 * heartbeat: one statement on their own connection, sent after a heartbeat in flight
	 * has ended, answered within the timeout. For code that must know before it acts, at
	 * the cost of a round trip: a leader that confirms its leadership before it leads on
	 * ({@code AdvisoryLockRegistry}'s re-entrant {@code tryLock} does, so that a leader
	 * whose session ended is revoked at its next check, not at its next heartbeat).
	 * {@link #checkHeld()} answers from what the last heartbeat found, and costs nothing.
	 * <p>
	 * A connection that does not answer in time counts as lost, as a frozen network would
	 * be: the locks are reported lost, and the connection is closed at the release.
	 * @param timeout the longest wait for the answer, positive; a heartbeat's bound,
	 * three heartbeats, applies too
	 * @throws LockLostException if the locks were lost, or are found lost now
	 * @throws IllegalStateException if they were released
	 * @since 0.1.0
	 */
	void confirmHeld(Duration timeout);

	/**
	 * Release the locks by rolling their transaction back, and give their connection
	 * back. Idempotent, from any thread: a second call, or one after the locks were lost,
	 * does nothing; a call while another thread releases them returns once they are
	 * released. A failure is logged, never thrown: PostgreSQL releases the locks of a
	 * connection that fails anyway. A rollback that fails means the locks were lost
	 * before it, so {@link #isLost()} answers {@code true} afterwards.
	 */
	void release();

	/**
	 * Release the locks, as {@link #release()} does.
	 */
	@Override
	default void close() {
		release();
	}

}
