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

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;

/**
 * Thrown when an advisory lock was not acquired: {@link WaitMode#TRY} found it held, or {@link WaitMode#BLOCK} waited
 * past its timeout (PostgreSQL's SQLSTATE {@code 55P03}).
 *
 * <p>As a {@link CannotAcquireLockException} it is caught by code that already handles Spring's lock failures. The
 * transaction it was thrown in should be rolled back: after a timeout PostgreSQL has aborted it, and after a failed
 * {@code TRY} of several keys, the keys acquired before the busy one stay held until the transaction ends.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class LockBusyException extends CannotAcquireLockException {

	private final String namespace;

	private final List<String> keyValues;

	private final List<Long> keys;

	private final @Nullable Duration timeout;

	/**
	 * Create a new instance.
	 * @param namespace the namespace of the keys
	 * @param keyValues the key values as rendered for the key derivation
	 * @param keys the 64-bit keys, in acquisition order
	 * @param timeout the timeout that ran out, or {@code null} for {@link WaitMode#TRY}
	 * @param cause the timeout reported by the driver, or {@code null} for {@link WaitMode#TRY}
	 */
	public LockBusyException(String namespace, List<String> keyValues, List<Long> keys, @Nullable Duration timeout,
			@Nullable Throwable cause) {
		super(message(namespace, keyValues, keys, timeout), cause);
		this.namespace = namespace;
		this.keyValues = List.copyOf(keyValues);
		this.keys = List.copyOf(keys);
		this.timeout = timeout;
	}

	private static String message(String namespace, List<String> keyValues, List<Long> keys,
			@Nullable Duration timeout) {
		String what = "Advisory lock " + namespace + ":" + keyValues + " (keys " + keys + ")";
		return (timeout != null) ? what + " not acquired within " + timeout.toMillis() + "ms"
				: what + " is held by another transaction (TRY)";
	}

	/**
	 * Return the namespace of the lock.
	 * @return the namespace
	 */
	public String getNamespace() {
		return this.namespace;
	}

	/**
	 * Return the key values of the call, rendered as text.
	 * @return the key values
	 */
	public List<String> getKeyValues() {
		return this.keyValues;
	}

	/**
	 * Return the 64-bit keys of the call, in ascending (acquisition) order.
	 * @return the keys
	 */
	public List<Long> getKeys() {
		return this.keys;
	}

	/**
	 * Return the timeout that ran out.
	 * @return the timeout, or {@code null} when the lock was tried without waiting
	 */
	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

}
