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
 * own until {@link #release()}, for a lock that outlives one method call.
 *
 * <p>
 * The locks belong to no thread: any thread may check or release them, and the thread
 * that took them neither sees them through {@link AdvisoryLockOperations#checkHeld()},
 * {@link AdvisoryLockOperations#currentHandle()} or {@link AdvisoryLockOperations#isHeld}
 * nor re-enters them, unless it runs in a task {@linkplain #wrap(Runnable) wrapped} in
 * the lock. A heartbeat keeps them alive, as for an annotated method. A lock never
 * released holds its connection, one of {@code advisory-lock.invocation.max-connections},
 * until the application stops.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public interface HeldLock extends LockHandle, AutoCloseable {

	/**
	 * Ask PostgreSQL now whether the locks are still held, at the cost of a round trip on
	 * their connection, for code that must know before it acts (a leader confirming its
	 * leadership); {@link #checkHeld()} answers from the last heartbeat, for free. A
	 * connection that does not answer within the timeout counts as lost, as a frozen
	 * network would, and is closed at the release.
	 * @param timeout the longest wait for the answer, positive; the wait never exceeds
	 * three heartbeats
	 * @throws LockLostException if the locks were lost, or are found lost now
	 * @throws IllegalStateException if they were released
	 * @since 0.1.0
	 */
	void confirmHeld(Duration timeout);

	/**
	 * Release the locks by rolling their transaction back, and give their connection
	 * back. Idempotent, from any thread; a call while another thread releases them
	 * returns once they are released. A failure is logged, never thrown (PostgreSQL
	 * releases the locks of a failed connection anyway), and makes {@link #isLost()}
	 * answer {@code true}.
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
