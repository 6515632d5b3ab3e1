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

import org.springframework.transaction.IllegalTransactionStateException;

/**
 * Thrown when an advisory lock is requested outside a transaction it can join: there is
 * no actual transaction (none, or propagation {@code SUPPORTS} without an outer one), its
 * effective isolation is above READ COMMITTED, or no JDBC connection of the lock's
 * {@code DataSource} is bound to it.
 *
 * <p>
 * Without a transaction, a transaction-level lock would be released at once; above READ
 * COMMITTED, the snapshot predates the lock, so the check that follows it could not see
 * what the previous holder wrote.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class LockTransactionException extends IllegalTransactionStateException {

	/**
	 * Create a new instance.
	 * @param message what is wrong and how to fix it
	 */
	public LockTransactionException(String message) {
		super(message);
	}

	/**
	 * Create a new instance.
	 * @param message what is wrong and how to fix it
	 * @param cause the underlying failure
	 */
	public LockTransactionException(String message, Throwable cause) {
		super(message, cause);
	}

}
