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

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Told about each acquisition of {@link AdvisoryLockOperations} (and so of every
 * {@link AdvisoryLocked @AdvisoryLocked} call): the seam for metrics, tracing and the key
 * labels of the Actuator endpoint, so that taking locks depends on none of them. Define a
 * bean of this type and the auto-configured operations tell it.
 *
 * <p>
 * Called on the caller's thread, inside its transaction (for an invocation scope, before
 * the call's own connection has any), on every acquisition; {@link Acquisition#released}
 * of a lost invocation-scoped lock comes from whichever thread found the loss, often a
 * heartbeat's. Implementations must be cheap and must not throw. One that throws anyway
 * is logged (at WARN, once per listener class) and skipped: the other listeners are still
 * told, and the caller's call is not affected.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockAcquisitionListener {

	/**
	 * Called once the keys of a call are derived, before its statement runs.
	 * @param namespace the namespace
	 * @param scope transaction or invocation
	 * @param mode exclusive or shared
	 * @param waitMode block, try or skip
	 * @param keys the distinct 64-bit keys, ascending
	 * @param values the text of the value each key was derived from, in the same order
	 * @return told how the acquisition ended; {@link Acquisition#IGNORED} if the listener
	 * does not care
	 */
	Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode, List<Long> keys,
			List<String> values);

	/**
	 * Called instead of {@link #starting} for a call of a concurrency limit
	 * ({@link AdvisoryLocked#permits() permits} above 1), once its keys are derived,
	 * before its statement runs. The call takes one of the permits, which
	 * {@link Acquisition#permitTaken} tells. By default, told as {@link #starting} a
	 * plain exclusive lock of the limit's key, which is permit 0's.
	 * @param namespace the namespace
	 * @param scope transaction or invocation
	 * @param waitMode block, try or skip
	 * @param value the text of the value the limit's key was derived from
	 * @param permitKeys the 64-bit key of each permit, permit 0 (the limit's key) first:
	 * as many as the limit has permits (see {@link AdvisoryLockKeys#permitSlot})
	 * @return told how the acquisition ended; {@link Acquisition#IGNORED} if the listener
	 * does not care
	 * @since 0.1.0
	 */
	default Acquisition startingLimit(String namespace, LockScope scope, WaitMode waitMode, String value,
			List<Long> permitKeys) {
		return starting(namespace, scope, LockMode.EXCLUSIVE, waitMode, List.of(permitKeys.get(0)), List.of(value));
	}

	/**
	 * One acquisition in progress.
	 */
	@FunctionalInterface
	interface Acquisition {

		/** An acquisition whose outcome nobody wants to know. */
		Acquisition IGNORED = (outcome, error) -> {
		};

		/**
		 * Called once when the acquisition ends, before any diagnosis of a busy lock.
		 * @param outcome how it ended
		 * @param error the failure for {@link Outcome#TIMEOUT} (the driver's) and
		 * {@link Outcome#ERROR}, otherwise {@code null}
		 */
		void finished(Outcome outcome, @Nullable Throwable error);

		/**
		 * Called once, just before {@link #finished finished(ACQUIRED)}, when the
		 * acquisition is one of a concurrency limit ({@link #startingLimit}): which
		 * permit the call holds. A nested call of the same limit takes no second permit,
		 * and is told the one its transaction holds.
		 * @param permit the index of the permit in the {@code permitKeys} the listener
		 * was told, from 0
		 * @since 0.1.0
		 */
		default void permitTaken(int permit) {
		}

		/**
		 * Called once, before {@link #finished} or {@link #lost}, when the acquisition is
		 * a fenced write: a {@link LockScope#TRANSACTION transaction-scoped} one for keys
		 * an enclosing invocation-scoped call of the same thread holds, which takes their
		 * fence locks and checks that the enclosing lock still holds them, rather than
		 * take them again. Its keys are those fenced.
		 * @since 0.1.0
		 */
		default void fenced() {
		}

		/**
		 * Called once, instead of {@link #finished}, when a fenced write found the
		 * enclosing invocation-scoped lock lost: the caller gets the
		 * {@link LockLostException}, and the enclosing acquisition is told
		 * {@link #released released(true)}. By default, told as an {@link Outcome#ERROR}.
		 * @param error the exception the caller gets
		 * @since 0.1.0
		 */
		default void lost(LockLostException error) {
			finished(Outcome.ERROR, error);
		}

		/**
		 * Called once when the locks of an {@link LockScope#INVOCATION invocation-scoped}
		 * acquisition end: when the call returns or throws, once the rollback that
		 * releases them has answered (a failed rollback tells them lost), or earlier,
		 * when a failed heartbeat showed them lost. Transaction-scoped locks end with
		 * their transaction, which a listener follows with a
		 * {@code TransactionSynchronization}, or earlier, at a rollback to a savepoint
		 * ({@link #releasedToSavepoint()}); those of a reactive transaction, which no
		 * thread-bound synchronization can follow, are told here, with {@code lost}
		 * false, when that transaction completes.
		 * @param lost whether they were lost while the call ran, rather than released at
		 * its end; a lost call ends with a {@link LockLostException}
		 */
		default void released(boolean lost) {
		}

		/**
		 * Called once when a rollback to a savepoint made before an acquired
		 * {@link LockScope#TRANSACTION transaction-scoped} acquisition
		 * ({@code Propagation.NESTED} rolled back) released its locks, while the
		 * transaction goes on; on the thread that rolled back, before the transaction's
		 * own end, which no longer concerns these locks. Not called for locks released by
		 * their transaction's commit or rollback, nor by a savepoint made after them.
		 * @since 0.1.0
		 */
		default void releasedToSavepoint() {
		}

	}

	/**
	 * How an acquisition ended.
	 */
	enum Outcome {

		/** Every lock of the call is held by the transaction. */
		ACQUIRED,

		/** A {@code TRY} found a lock held. */
		BUSY,

		/**
		 * A {@code SKIP} found a lock held: the work did not run, and nothing is held.
		 */
		SKIPPED,

		/** A {@code BLOCK} ran out of time (SQLSTATE {@code 55P03}). */
		TIMEOUT,

		/** Anything else: no suitable transaction, a deadlock, another SQL error. */
		ERROR

	}

}
