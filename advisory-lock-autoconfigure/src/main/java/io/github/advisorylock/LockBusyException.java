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
 * As a {@link CannotAcquireLockException} it is caught by code that already handles
 * Spring's lock failures. The transaction it was thrown in should be rolled back: after a
 * timeout PostgreSQL has aborted it, and after a failed {@code TRY} of several keys, the
 * keys acquired before the busy one stay held until the transaction ends.
 *
 * <p>
 * When the template diagnoses busy locks (the default under Spring Boot), the exception
 * also names the sessions that held the lock ({@link #getHolders()}), and its message
 * prints them. A diagnosis that failed or was skipped never replaces this exception: its
 * reason is in the message, and its exception, if any, is {@linkplain #getSuppressed()
 * suppressed} here.
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
	 * @param keyValues the key values as rendered for the key derivation
	 * @param keys the 64-bit keys, in acquisition order
	 * @param timeout the timeout that ran out, or {@code null} for {@link WaitMode#TRY}
	 * @param cause the timeout reported by the driver, or {@code null} for
	 * {@link WaitMode#TRY}
	 */
	public LockBusyException(String namespace, List<String> keyValues, List<Long> keys, @Nullable Duration timeout,
			@Nullable Throwable cause) {
		this(namespace, keyValues, keys, timeout, cause, null, null);
	}

	/**
	 * Create a new instance with the outcome of a diagnosis of the holders.
	 * @param namespace the namespace of the keys
	 * @param keyValues the key values as rendered for the key derivation
	 * @param keys the 64-bit keys, in acquisition order
	 * @param timeout the timeout that ran out, or {@code null} for {@link WaitMode#TRY}
	 * @param cause the timeout reported by the driver, or {@code null} for
	 * {@link WaitMode#TRY}
	 * @param holders the sessions found holding the lock, or {@code null} if they were
	 * not diagnosed
	 * @param notDiagnosed why the holders were not diagnosed, or {@code null}
	 * @since 0.1.0
	 */
	public LockBusyException(String namespace, List<String> keyValues, List<Long> keys, @Nullable Duration timeout,
			@Nullable Throwable cause, @Nullable List<LockHolderInfo> holders, @Nullable String notDiagnosed) {
		this(namespace, keyValues, keys, timeout, cause, holders, notDiagnosed, null);
	}

	/**
	 * Create a new instance with the outcome of a diagnosis of the holders, and what the
	 * library knows of the holder itself: that it is an invocation-scoped call of this
	 * application, say, which a thread it started waits for.
	 * @param namespace the namespace of the keys
	 * @param keyValues the key values as rendered for the key derivation
	 * @param keys the 64-bit keys, in acquisition order
	 * @param timeout the timeout that ran out, or {@code null} for {@link WaitMode#TRY}
	 * @param cause the timeout reported by the driver, or {@code null} for
	 * {@link WaitMode#TRY}
	 * @param holders the sessions found holding the lock, or {@code null} if they were
	 * not diagnosed
	 * @param notDiagnosed why the holders were not diagnosed, or {@code null}
	 * @param holderHint what the library knows of the holder, the end of the message, or
	 * {@code null}
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
	 * @return the holders; empty when they were not diagnosed (see
	 * {@link #isDiagnosed()}) or had gone already
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
