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
import org.springframework.util.StringUtils;

/**
 * Thrown when an advisory lock was not acquired: {@link WaitMode#TRY} found it held, or
 * {@link WaitMode#BLOCK} waited past its timeout (PostgreSQL's SQLSTATE {@code 55P03}).
 *
 * <p>
 * Roll back the transaction it was thrown in: after a timeout PostgreSQL has aborted it,
 * and after a failed {@code TRY} of several keys, those acquired before the busy one stay
 * held until it ends.
 *
 * <p>
 * Where busy locks are diagnosed (the default under Spring Boot), it names the sessions
 * that held the lock ({@link #getHolders()}). A diagnosis that failed or was skipped
 * gives its reason in the message, and its exception, if any, is
 * {@linkplain #getSuppressed() suppressed} here.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class LockBusyException extends CannotAcquireLockException {

	private final String namespace;

	private final List<String> keyValues;

	private final List<Long> keys;

	private final @Nullable Duration timeout;

	private final @Nullable List<LockHolderInfo> holders;

	/**
	 * Create a new instance without a diagnosis of the holders.
	 * @param namespace the namespace of the keys
	 * @param keyValues the text of the key values
	 * @param keys the 64-bit keys, in acquisition order
	 * @param timeout the timeout that ran out, or {@code null} for {@link WaitMode#TRY}
	 * @param cause the driver's timeout, or {@code null} for {@link WaitMode#TRY}
	 */
	public LockBusyException(String namespace, List<String> keyValues, List<Long> keys, @Nullable Duration timeout,
			@Nullable Throwable cause) {
		this(namespace, keyValues, keys, timeout, cause, null, null);
	}

	/**
	 * Create a new instance with the outcome of a diagnosis of the holders.
	 * @param namespace the namespace of the keys
	 * @param keyValues the text of the key values
	 * @param keys the 64-bit keys, in acquisition order
	 * @param timeout the timeout that ran out, or {@code null} for {@link WaitMode#TRY}
	 * @param cause the driver's timeout, or {@code null} for {@link WaitMode#TRY}
	 * @param holders the sessions found holding the lock, or {@code null}
	 * @param notDiagnosed why the holders were not diagnosed, or {@code null}
	 * @since 0.1.0
	 */
	public LockBusyException(String namespace, List<String> keyValues, List<Long> keys, @Nullable Duration timeout,
			@Nullable Throwable cause, @Nullable List<LockHolderInfo> holders, @Nullable String notDiagnosed) {
		this(namespace, keyValues, keys, timeout, cause, holders, notDiagnosed, null);
	}

	/**
	 * Create a new instance with the outcome of a diagnosis of the holders, and what the
	 * library knows of the holder, such as that it is this application's own
	 * invocation-scoped call.
	 * @param namespace the namespace of the keys
	 * @param keyValues the text of the key values
	 * @param keys the 64-bit keys, in acquisition order
	 * @param timeout the timeout that ran out, or {@code null} for {@link WaitMode#TRY}
	 * @param cause the driver's timeout, or {@code null} for {@link WaitMode#TRY}
	 * @param holders the sessions found holding the lock, or {@code null}
	 * @param notDiagnosed why the holders were not diagnosed, or {@code null}
	 * @param holderHint what the library knows of the holder, or {@code null}
	 * @since 0.1.0
	 */
	public LockBusyException(String namespace, List<String> keyValues, List<Long> keys, @Nullable Duration timeout,
			@Nullable Throwable cause, @Nullable List<LockHolderInfo> holders, @Nullable String notDiagnosed,
			@Nullable String holderHint) {
		super(message(namespace, keyValues, keys, timeout, holders, notDiagnosed, holderHint), cause);
		this.namespace = namespace;
		this.keyValues = List.copyOf(keyValues);
		this.keys = List.copyOf(keys);
		this.timeout = timeout;
		this.holders = (holders != null) ? List.copyOf(holders) : null;
	}

	private static String message(String namespace, List<String> keyValues, List<Long> keys, @Nullable Duration timeout,
			@Nullable List<LockHolderInfo> holders, @Nullable String notDiagnosed, @Nullable String holderHint) {
		String what = "Advisory lock " + AdvisoryLockKeys.printable(namespace, keyValues) + " (keys " + keys + ")";
		String message = (timeout != null) ? what + " not acquired within " + timeout.toMillis() + "ms"
				: what + " is held by another transaction (TRY)";
		if (holders != null) {
			message += holders.isEmpty() ? "; no holder found any more (its transaction has ended since)"
					: "; held by " + StringUtils
						.collectionToDelimitedString(holders.stream().map(LockHolderInfo::describe).toList(), ", ");
		}
		if (notDiagnosed != null) {
			message += "; holders not diagnosed: " + notDiagnosed;
		}
		if (holderHint != null) {
			message += "; " + holderHint;
		}
		return message;
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

	/**
	 * Return the sessions that held the lock a moment after the call failed, oldest
	 * transaction first.
	 * @return the holders; empty when not diagnosed ({@link #isDiagnosed()}) or gone
	 */
	public List<LockHolderInfo> getHolders() {
		return (this.holders != null) ? this.holders : List.of();
	}

	/**
	 * Return whether the holders were diagnosed.
	 * @return {@code true} if {@link #getHolders()} reports what PostgreSQL showed
	 */
	public boolean isDiagnosed() {
		return this.holders != null;
	}

}
