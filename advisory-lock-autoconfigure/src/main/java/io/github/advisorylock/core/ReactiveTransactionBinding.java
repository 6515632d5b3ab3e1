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

import io.github.advisorylock.LockRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * How a reactive driver binds a transaction-scoped lock to the subscriber's reactive
 * transaction: the connection a call joins, with the checks that a lock there protects
 * something. The driver's half of {@link ReactiveTransactionLockFlow}, beside its
 * {@link ReactiveLockStatements}; the keys taken are recorded by the flow, in
 * {@link ReactiveTransactionLockSynchronization}. Loaded only for reactive calls.
 * Internal: used by the driver adapters, not API.
 *
 * @param <B> the driver's bound connection
 * @author advisory-lock authors
 */
public interface ReactiveTransactionBinding<B extends ReactiveTransactionBinding.Bound> {

	/**
	 * Return the connection factory a call locks on, as the enclosing invocation-scoped
	 * locks are known by: the one it names, or the default.
	 * @param request the request
	 * @return the connection factory, or {@code null} when it names none and there is no
	 * default
	 * @throws IllegalArgumentException if the request names an unknown one
	 */
	@Nullable Object heldLocksTarget(LockRequest request);

	/**
	 * Find the connection of the subscriber's reactive transaction that a call joins,
	 * after checking that the transaction is actual, READ COMMITTED, and managed for that
	 * connection.
	 * @param transaction the synchronization of the subscriber's reactive transaction
	 * @param request the request
	 * @return the bound connection
	 * @throws io.github.advisorylock.LockTransactionException if a lock there would
	 * protect nothing
	 */
	B bind(TransactionSynchronizationManager transaction, LockRequest request);

	/**
	 * A connection bound to the subscriber's transaction.
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
