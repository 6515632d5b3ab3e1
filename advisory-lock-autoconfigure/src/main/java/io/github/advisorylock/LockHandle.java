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

}
