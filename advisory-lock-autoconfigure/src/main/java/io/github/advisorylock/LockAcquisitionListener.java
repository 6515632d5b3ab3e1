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
 * Listener told about each acquisition of {@link AdvisoryLockOperations} (and so of every
 * {@link AdvisoryLocked @AdvisoryLocked} call), for metrics, tracing and the endpoint's
 * key labels. The auto-configured operations tell every bean of this type.
 *
 * <p>
 * Called on the caller's thread, inside its transaction (for an invocation scope, before
 * the call's own connection has one), except {@link Acquisition#released} of a lost
 * invocation-scoped lock, which comes from the thread that found the loss, often a
 * heartbeat's. Implementations must be cheap and must not throw; one that throws is
 * logged (at WARN, once per listener class) and skipped, without affecting the other
 * listeners or the call.
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
	 * ({@link AdvisoryLocked#permits() permits} above 1); {@link Acquisition#permitTaken}
	 * tells which permit it took. By default, told as {@link #starting} a plain exclusive
	 * lock of permit 0's key.
	 * @param namespace the namespace
	 * @param scope transaction or invocation
	 * @param waitMode block, try or skip
	 * @param value the text of the value the limit's key was derived from
	 * @param permitKeys the 64-bit key of each permit, permit 0 (the limit's key) first
	 * (see {@link AdvisoryLockKeys#permitSlot})
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
		 * Called once, just before {@link #finished finished(ACQUIRED)}, for a
		 * concurrency limit ({@link #startingLimit}): which permit the call holds, for a
		 * nested call of the same limit the one its transaction holds.
		 * @param permit the index of the permit in the {@code permitKeys} the listener
		 * was told, from 0
		 * @since 0.1.0
		 */
		default void permitTaken(int permit) {
		}

		/**
		 * Called once, before {@link #finished} or {@link #lost}, when the acquisition is
		 * a fenced write (see {@link AdvisoryLockOperations#lock(LockRequest)}); its keys
		 * are those fenced.
		 * @since 0.1.0
		 */
		default void fenced() {
		}

		/**
		 * Called once, instead of {@link #finished}, when a fenced write found the
		 * enclosing lock lost, whose acquisition is then told {@link #released
		 * released(true)}. By default, told as an {@link Outcome#ERROR}.
		 * @param error the exception the caller gets
		 * @since 0.1.0
		 */
		default void lost(LockLostException error) {
			finished(Outcome.ERROR, error);
		}

		/**
		 * Called once when the locks of an {@link LockScope#INVOCATION invocation-scoped}
		 * acquisition end: once the rollback that releases them at the call's end has
		 * answered (a failed one tells them lost), or earlier, when a heartbeat found
		 * them lost. A listener follows transaction-scoped locks with a
		 * {@code TransactionSynchronization}, except those of a reactive transaction,
		 * which no thread-bound synchronization can follow: they are told here, with
		 * {@code lost} false, when that transaction completes.
		 * @param lost whether they were lost while the call ran, rather than released at
		 * its end; a lost call ends with a {@link LockLostException}
		 */
		default void released(boolean lost) {
		}

		/**
		 * Called once, on the thread that rolled back, when a rollback to a savepoint
		 * made before an acquired {@link LockScope#TRANSACTION transaction-scoped}
		 * acquisition ({@code Propagation.NESTED}) released its locks while the
		 * transaction goes on. Not called for locks that the transaction's end releases.
		 * @since 0.1.0
		 */
		default void releasedToSavepoint() {
		}

	}

	/**
	 * How an acquisition ended.
	 */
	enum Outcome {

		/** Every lock of the call is held. */
		ACQUIRED,

		/** A {@code TRY} found a lock held. */
		BUSY,

		/** A {@code SKIP} found a lock held: the work did not run, nothing is held. */
		SKIPPED,

		/** A {@code BLOCK} ran out of time (SQLSTATE {@code 55P03}). */
		TIMEOUT,

		/** Anything else: no suitable transaction, a deadlock, another SQL error. */
		ERROR

	}

}
