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
 * method, see {@link AdvisoryLockOperations#currentHandle()}) holds while its work runs.
 * Safe to use from any thread the work fans out to, for as long as the work runs.
 *
 * <p>
 * Once the call has returned, its locks are released, and the handle answers for the time
 * they were held: a loss during the call is still reported, and otherwise
 * {@link #checkHeld()} passes and {@link #isLost()} is {@code false}, although nothing is
 * held any more. Work that outlives the call is not guarded by it.
 *
 * <p>
 * A task {@linkplain #wrap(Runnable) wrapped} in the handle runs on its worker thread as
 * if that thread held the locks itself, so that its transactions can be fenced writes:
 * <pre class="code">
 * LockHandle handle = this.locks.currentHandle();
 * List&lt;Future&lt;?&gt;&gt; parts = batches.stream()
 *     .map((batch) -&gt; executor.submit(handle.wrap(() -&gt; this.writer.write(batch))))
 *     .toList();
 * </pre>
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public interface LockHandle {

	/**
	 * Return whether the locks were lost: an {@link LockScope#INVOCATION
	 * invocation-scoped} lock whose connection failed a heartbeat, or whose last
	 * confirmed heartbeat is older than the dead-man switch of three (PostgreSQL may have
	 * ended its session by then), or whose transaction the server's
	 * {@code transaction_timeout} ended. A {@link LockScope#TRANSACTION
	 * transaction-scoped} lock is never reported lost: it ends with its transaction,
	 * whose next statement fails.
	 * @return whether the locks were lost
	 */
	boolean isLost();

	/**
	 * Throw if the locks were lost (see {@link #isLost()}); call it at the safe points of
	 * long work. Costs no database call: a failed session shows here once a heartbeat has
	 * found it, a silent one once the dead-man switch has run out, whichever comes first.
	 * @throws LockLostException if the locks were lost
	 */
	void checkHeld();

	/**
	 * Return a task that runs with these locks as the thread of the call that holds them
	 * does, for the threads its work fans out to. While the task runs, its thread holds
	 * them: {@link AdvisoryLockOperations#checkHeld()} checks them,
	 * {@link AdvisoryLockOperations#isHeld isHeld} finds them, a nested
	 * {@link LockScope#INVOCATION invocation-scoped} call for one of their keys is
	 * re-entrant, and a {@link LockScope#TRANSACTION transaction-scoped} lock for one of
	 * their keys, inside a transaction, is a fenced write (see
	 * {@link AdvisoryLockOperations#lock(LockRequest)}). Fenced transactions for one key
	 * run one at a time, on every thread. Afterwards the thread holds nothing more than
	 * before.
	 *
	 * <p>
	 * Do not wait for a wrapped task inside a fenced transaction of the same key: the
	 * task's fenced write would wait for that transaction's fence, which waits for the
	 * task, until the idle timeout (three heartbeats) ends the transaction.
	 *
	 * <p>
	 * The handle of a transaction-scoped lock, and of a reactive one, returns the task
	 * unchanged: a transaction-scoped lock belongs to one transaction, which a worker's
	 * transaction is not part of, and a reactive fenced write finds its enclosing lock in
	 * the subscriber's Reactor context, on no thread in particular.
	 * @param task the work of one worker
	 * @return the task to hand to the worker's executor; when it runs after the call that
	 * holds the locks has ended, it throws {@link IllegalStateException} without running
	 * the work, and {@link LockLostException} if the locks were lost
	 * @since 0.1.0
	 */
	Runnable wrap(Runnable task);

	/**
	 * Return a task that runs with these locks as the thread of the call that holds them
	 * does: {@link #wrap(Runnable)} for work that returns a value.
	 * @param <T> the type of the value
	 * @param task the work of one worker
	 * @return the task to hand to the worker's executor; when it runs after the call that
	 * holds the locks has ended, it throws {@link IllegalStateException} without running
	 * the work, and {@link LockLostException} if the locks were lost
	 * @since 0.1.0
	 */
	<T> Callable<T> wrap(Callable<T> task);

}
