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

import java.util.concurrent.Callable;

/**
 * The locks an {@link AdvisoryLockOperations#execute execute} call (or an annotated
 * method, see {@link AdvisoryLockOperations#currentHandle()}) holds while its work runs,
 * safe to use from any thread the work fans out to.
 *
 * <p>
 * Once the call has returned, the handle answers for the time the locks were held: a loss
 * during the call is still reported, and otherwise {@link #checkHeld()} passes, although
 * nothing is held any more. Work that outlives the call is not guarded by it.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public interface LockHandle {

	/**
	 * Return whether the locks were lost: an {@link LockScope#INVOCATION
	 * invocation-scoped} lock whose connection failed a heartbeat, or whose last
	 * confirmed heartbeat is more than three heartbeats old, when PostgreSQL may have
	 * ended its session, or whose transaction the server's {@code transaction_timeout}
	 * ended. A {@link LockScope#TRANSACTION transaction-scoped} lock is never reported
	 * lost: it ends with its transaction, whose next statement fails.
	 * @return whether the locks were lost
	 */
	boolean isLost();

	/**
	 * Throw if the locks were lost (see {@link #isLost()}); call it at the safe points of
	 * long work. Costs no database call.
	 * @throws LockLostException if the locks were lost
	 */
	void checkHeld();

	/**
	 * Return the fencing token of this hold: a number greater than the token of every
	 * earlier holder of the same keys, across instances, losses, restarts and a failover
	 * to a synchronous standby, for a store outside this database to refuse a stale
	 * holder's writes. The first call issues it in a short transaction of its own that
	 * checks the hold; later calls return the same number. Only an
	 * {@link LockScope#INVOCATION invocation-scoped} lock has one; holders at once
	 * (SHARED, or a limit's permits) get them in no particular order. What breaks the
	 * order and what it costs: docs/scheduled-work.md, "Fencing tokens".
	 * @return the token, positive
	 * @throws LockLostException if the lock was found lost, before or by the check
	 * @throws IllegalStateException for a transaction-scoped lock, or a call that has
	 * ended before the first ask
	 * @since 0.1.0
	 */
	long fencingToken();

	/**
	 * Return a task that runs with these locks as the thread of the call that holds them
	 * does, for the threads its work fans out to. While the task runs, its thread holds
	 * them: {@link AdvisoryLockOperations#checkHeld()} checks them,
	 * {@link AdvisoryLockOperations#isHeld isHeld} finds them, a nested
	 * {@link LockScope#INVOCATION invocation-scoped} call for one of their keys is
	 * re-entrant, and a transaction-scoped lock for one of their keys is a fenced write
	 * (see {@link AdvisoryLockOperations#lock(LockRequest)}), one at a time per key.
	 * Afterwards the thread holds nothing more than before.
	 *
	 * <p>
	 * Do not wait for a wrapped task inside a fenced transaction of the same key: the
	 * task's fenced write waits for that transaction, until the idle timeout (three
	 * heartbeats) ends it.
	 *
	 * <p>
	 * The handle of a transaction-scoped lock (which belongs to one transaction) or of a
	 * reactive one (which lives in the Reactor context, not on a thread) returns the task
	 * unchanged.
	 * @param task the work of one worker
	 * @return the task to hand to the worker's executor; when it runs after the call that
	 * holds the locks has ended, it throws {@link IllegalStateException} without running
	 * the work, and {@link LockLostException} if the locks were lost
	 * @since 0.1.0
	 */
	Runnable wrap(Runnable task);

	/**
	 * Return a task that runs with these locks: {@link #wrap(Runnable)} for work that
	 * returns a value.
	 * @param <T> the type of the value
	 * @param task the work of one worker
	 * @return the task to hand to the worker's executor; when it runs after the call that
	 * holds the locks has ended, it throws {@link IllegalStateException} without running
	 * the work, and {@link LockLostException} if the locks were lost
	 * @since 0.1.0
	 */
	<T> Callable<T> wrap(Callable<T> task);

}
