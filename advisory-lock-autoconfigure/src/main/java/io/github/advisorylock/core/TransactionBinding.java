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

import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * How a driver binds a transaction-scoped lock to the caller's transaction: it finds the
 * connection a call joins, with the checks that a lock there protects something, and
 * records the keys taken, so that a suspension or a savepoint rollback follows them. The
 * driver's half of {@link TransactionLockFlow}, beside its {@link LockStatements}.
 * Internal: used by the driver adapters, not API.
 *
 * @param <B> the driver's bound connection
 * @author advisory-lock authors
 */
public interface TransactionBinding<B extends TransactionBinding.Bound> {

	/**
	 * Return whether the caller runs in an actual transaction.
	 * @return whether it does
	 */
	boolean inTransaction();

	/**
	 * Return what the enclosing invocation-scoped locks of a call on the same database
	 * are known by: the resource the call would lock on; without a transaction to tell,
	 * the one it names or the default.
	 * @param request the request
	 * @return the resource, or {@code null} when there is none to tell
	 * @throws IllegalArgumentException if the request names an unknown resource
	 */
	@Nullable Object heldLocksTarget(LockRequest request);

	/**
	 * Find the connection of the current transaction that a call joins, after checking
	 * that the transaction is actual, READ COMMITTED, and managed for that connection.
	 * @param request the request
	 * @return the bound connection, to give back with {@link #release}
	 * @throws io.github.advisorylock.LockTransactionException if a lock there would
	 * protect nothing
	 */
	B bind(LockRequest request);

	/**
	 * Record keys the transaction took.
	 * @param bound the bound connection they were taken on
	 * @param mode the mode they are held in
	 * @param keys the keys
	 * @param acquisition what to tell the listeners when they are released
	 */
	void record(B bound, LockMode mode, List<Long> keys, Acquisition acquisition);

	/**
	 * Give the connection back to the transaction; the locks stay until it ends.
	 * @param bound the bound connection
	 */
	void release(B bound);

	/**
	 * A connection bound to the caller's transaction.
	 */
	interface Bound {

		/**
		 * Return what a lock taken on the connection is known by, resolved once.
		 * @return the innermost resource
		 */
		Object target();

		/**
		 * Return the transaction's holder of the connection, which a suspension moves.
		 * @return the holder
		 */
		Object holder();

	}

}
