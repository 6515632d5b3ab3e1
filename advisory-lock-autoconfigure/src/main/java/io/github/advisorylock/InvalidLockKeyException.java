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

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock key cannot be used: a key value is {@code null}, of an unsupported
 * type, or an empty collection or one holding such a value; a key expression threw (the
 * exception is the cause); or a call names more distinct keys than
 * {@code advisory-lock.max-keys} allows. For an {@link AdvisoryLocked @AdvisoryLocked}
 * method, the message names the method and the key expression.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see AdvisoryLockKeys
 */
public class InvalidLockKeyException extends IllegalArgumentException {

	private final int keyIndex;

	/**
	 * Create a new instance that concerns no single key value.
	 * @param message what is wrong with the key and how to fix it
	 */
	public InvalidLockKeyException(String message) {
		super(message);
		this.keyIndex = -1;
	}

	/**
	 * Create a new instance that concerns no single key value.
	 * @param message what is wrong with the key and how to fix it
	 * @param cause the underlying failure
	 */
	public InvalidLockKeyException(String message, Throwable cause) {
		super(message, cause);
		this.keyIndex = -1;
	}

	/**
	 * Create a new instance for one refused key value.
	 * @param message what is wrong with the key and how to fix it
	 * @param keyIndex the index of the refused value among the {@link LockRequest#keys()
	 * keys} of the request, or {@code -1} if the failure concerns no single one
	 * @param cause the underlying failure, or {@code null}
	 * @since 0.1.0
	 */
	public InvalidLockKeyException(String message, int keyIndex, @Nullable Throwable cause) {
		super(message, cause);
		this.keyIndex = Math.max(keyIndex, -1);
	}

	/**
	 * Return the index of the refused value (or the collection or array holding it) among
	 * the {@link LockRequest#keys() keys} of the request; for an
	 * {@link AdvisoryLocked @AdvisoryLocked} method, the index of the key expression,
	 * also when the expression itself failed. {@code -1} when the failure concerns no
	 * single value: no key, or more than {@code advisory-lock.max-keys}.
	 * @return the index, or {@code -1}
	 * @since 0.1.0
	 */
	public int getKeyIndex() {
		return this.keyIndex;
	}

}
