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

package io.github.advisorylock.contract;

import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;

/**
 * The lock operations of one stack, JDBC or R2DBC, as {@link AbstractLockContractTests}
 * drives them: each call returns once the stack's own operation completed, so that the
 * contract is written once, in plain steps, and every step runs the stack's real template
 * in a real transaction. A step that fails throws what the stack's operation failed with.
 */
interface LockStack {

	/**
	 * Run steps in a new READ COMMITTED transaction of the topology under test: it
	 * commits when they return, and rolls back when they throw (what they threw is
	 * rethrown).
	 * @param <T> what the steps return
	 * @param steps the steps
	 * @return what they returned
	 */
	<T> T inTransaction(TransactionSteps<T> steps);

	/**
	 * Run work under invocation-scoped locks, outside any transaction. The work runs on a
	 * thread that may block, and may start transactions of its own with
	 * {@link #inTransaction}.
	 * @param <T> what the work returns
	 * @param request the request, of invocation scope
	 * @param work the work
	 * @return what the work returned, or that it was skipped
	 */
	<T> LockResult<T> execute(LockRequest request, Supplier<T> work);

	/**
	 * Tell a listener, from now on, about every acquisition of the stack's template.
	 * @param listener the listener
	 */
	void listen(LockAcquisitionListener listener);

	/**
	 * Return the data source the contract's other sessions hold keys through.
	 * @return the data source
	 */
	DataSource holders();

	/**
	 * Return the SQLSTATE of an exception of the stack's driver.
	 * @param driverException a cause the template kept
	 * @return the SQLSTATE
	 */
	String sqlState(Throwable driverException);

	/**
	 * Steps in one transaction.
	 *
	 * @param <T> what they return
	 */
	@FunctionalInterface
	interface TransactionSteps<T> {

		T run(Transaction transaction);

	}

	/**
	 * The operations of the current transaction.
	 */
	interface Transaction {

		void lock(LockRequest request);

		default void lock(String namespace, Object... keys) {
			lock(LockRequest.of(namespace, keys));
		}

		boolean tryLock(String namespace, Object... keys);

		/**
		 * Run work under transaction-scoped locks taken in this transaction.
		 */
		<T> LockResult<T> execute(LockRequest request, Supplier<T> work);

		int backendPid();

		/**
		 * Return the {@code int} a query with {@code ?} parameters reads.
		 */
		int queryForInt(String sql, Object... arguments);

		void update(String sql, Object... arguments);

		void setRollbackOnly();

	}

}
