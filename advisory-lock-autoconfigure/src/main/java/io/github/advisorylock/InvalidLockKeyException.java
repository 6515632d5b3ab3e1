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
 * Thrown when a lock key cannot be used: a key expression gave {@code null}, an empty collection, a collection holding
 * {@code null}, or a value of an unsupported type, or it threw (the exception is the cause), or a call names more
 * distinct keys than {@code advisory-lock.max-keys} allows. For an {@link AdvisoryLocked @AdvisoryLocked} method,
 * the message names the method and the key expression.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see AdvisoryLockKeys
 */
public class InvalidLockKeyException extends IllegalArgumentException {

	/**
	 * Create a new instance.
	 * @param message what is wrong with the key and how to fix it
	 */
	public InvalidLockKeyException(String message) {
		super(message);
	}

	/**
	 * Create a new instance.
	 * @param message what is wrong with the key and how to fix it
	 * @param cause the underlying failure
	 */
	public InvalidLockKeyException(String message, Throwable cause) {
		super(message, cause);
	}

}
