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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A request for advisory locks: the namespace, the key values, the lock mode, the wait
 * mode, the timeout, the scope and, where the application has several
 * {@code DataSource}s, the one to lock on. Immutable: each {@code with...} method returns
 * a copy. Its arguments are checked when it is made (docs/usage.md).
 *
 * @param namespace the namespace of the keys, not blank, at most
 * {@link #MAX_NAMESPACE_LENGTH} characters, no NUL character (which PostgreSQL's text
 * cannot hold)
 * @param keys the key values; each one value, or a collection or array of values
 * @param mode exclusive or shared
 * @param waitMode wait up to the timeout, try once, or skip the work when a lock is held
 * @param timeout how long {@link WaitMode#BLOCK} may wait (see {@link #checkTimeout});
 * {@code null} for the configured default, and for {@link WaitMode#TRY} and
 * {@link WaitMode#SKIP}, which never wait
 * @param scope whether the locks last as long as the current transaction (the default) or
 * as the {@link AdvisoryLockOperations#execute execute} call
 * @param dataSource the bean name of the {@code DataSource} (on the reactive stack, of
 * the R2DBC {@code ConnectionFactory}) to lock on, or {@code null} for the default (see
 * {@link #withDataSource})
 * @param caller what made the request, for messages, or {@code null} (see
 * {@link #withCaller})
 * @param keyNames the name of each of the {@code keys}, in order, for messages; empty to
 * call them by their index
 * @param permits 1 (the default) for a plain lock, more for a concurrency limit (see
 * {@link #withPermits})
 * @author advisory-lock authors
 * @since 0.1.0
 */
public record LockRequest(String namespace, List<? extends @Nullable Object> keys, LockMode mode, WaitMode waitMode,
		@Nullable Duration timeout, LockScope scope, @Nullable String dataSource, @Nullable String caller,
		List<String> keyNames, int permits) {

	/**
	 * The most permits a limit may have: a try asks for each permit in one statement, and
	 * each held permit takes an entry in PostgreSQL's shared lock table.
	 */
	public static final int MAX_PERMITS = 64;

	/**
	 * The longest timeout: PostgreSQL's {@code lock_timeout} is an integer number of
	 * milliseconds.
	 */
	public static final Duration MAX_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

	/**
	 * The longest namespace, in characters ({@link String#length()}): a namespace names a
	 * rule in a few words, and becomes a metric tag and part of every message about the
	 * lock.
	 */
	public static final int MAX_NAMESPACE_LENGTH = 100;

	private static final String TIMEOUT_RANGE = "must be between 1ms and " + MAX_TIMEOUT.toMillis()
			+ "ms (PostgreSQL's lock_timeout range; 0 would wait forever)";

	private static final long PRINTABLE_SECONDS = 1_000_000_000_000L;

	/**
	 * Create a new instance, checking its arguments as the components describe.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @param mode exclusive or shared
	 * @param waitMode wait up to the timeout, try once, or skip
	 * @param timeout the wait bound, or {@code null}
	 * @param scope how long the locks last
	 * @param dataSource the bean name of the {@code DataSource}, or {@code null}
	 * @param caller what made the request, or {@code null}; not blank
	 * @param keyNames the name of each key value, or empty
	 * @param permits 1 for a plain lock, up to {@link #MAX_PERMITS} for a limit
	 * @throws IllegalArgumentException if an argument breaks its rule
	 */
	public LockRequest {
		Assert.hasText(namespace,
				"Advisory lock namespace must not be blank; name the guarded rule, for example " + "\"setup_request\"");
		Assert.isTrue(namespace.length() <= MAX_NAMESPACE_LENGTH, () -> "Advisory lock namespace is "
				+ namespace.length() + " characters long, more than the limit of " + MAX_NAMESPACE_LENGTH
				+ " (LockRequest.MAX_NAMESPACE_LENGTH): it becomes a metric tag and part of every message about the "
				+ "lock, so name the guarded rule in a few words, and let the keys tell the resources apart");
		int nul = namespace.indexOf('\u0000');
		Assert.isTrue(nul < 0,
				() -> "Advisory lock namespace holds a NUL character (\\u0000) at index " + nul
						+ ", which PostgreSQL's text cannot hold (an invocation-scoped lock names its namespace in its "
						+ "session's application_name): remove it");
		Assert.notNull(keys, "Keys must not be null");
		Assert.notNull(mode, "LockMode must not be null");
		Assert.notNull(waitMode, "WaitMode must not be null");
		Assert.notNull(scope, "LockScope must not be null");
		Assert.isTrue(dataSource == null || !dataSource.isBlank(), "DataSource name must not be blank; give the bean "
				+ "name of a DataSource, or null for the one the current transaction is bound to");
		if (timeout != null) {
			Assert.isTrue(isValidTimeout(timeout),
					() -> "Advisory lock timeout '" + print(timeout) + "' " + TIMEOUT_RANGE);
			Assert.isTrue(waitMode == WaitMode.BLOCK,
					() -> "Advisory lock timeout '" + print(timeout) + "' has no meaning for waitMode " + waitMode
							+ ", which never waits: remove it, or use " + "waitMode BLOCK");
		}
		Assert.isTrue(caller == null || !caller.isBlank(),
				"Caller must not be blank; describe what makes the request, or give null");
		Assert.notNull(keyNames, "Key names must not be null; give an empty list to call the keys by their index");
		int names = keyNames.size();
		int values = keys.size();
		Assert.isTrue(names == 0 || names == values, () -> "Key names name " + names + " keys, but the request has "
				+ values + ": give one name per key value, or none");
		Assert.isTrue(permits >= 1 && permits <= MAX_PERMITS,
				() -> "Advisory lock permits must be between 1 and " + MAX_PERMITS + " (LockRequest.MAX_PERMITS), was "
						+ permits + ": 1 is a plain lock, more a limit of " + "that many calls at once");
		Assert.isTrue(permits == 1 || mode == LockMode.EXCLUSIVE, () -> "Advisory lock permits = " + permits
				+ " limits exclusive holders, and mode SHARED has no limit to keep (shared holders run together "
				+ "anyway): remove permits, or use mode EXCLUSIVE");
		// Not List.copyOf, which rejects nulls: the key derivation reports them.
		keys = Collections.unmodifiableList(new ArrayList<>(keys));
		keyNames = List.copyOf(keyNames);
	}

	/**
	 * Create a request without a caller's description, its keys called by their index.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @param mode exclusive or shared
	 * @param waitMode wait up to the timeout, try once, or skip
	 * @param timeout the wait bound, or {@code null} for the default
	 * @param scope how long the locks last
	 * @param dataSource the bean name of the {@code DataSource}, or {@code null}
	 */
	public LockRequest(String namespace, List<? extends @Nullable Object> keys, LockMode mode, WaitMode waitMode,
			@Nullable Duration timeout, LockScope scope, @Nullable String dataSource) {
		this(namespace, keys, mode, waitMode, timeout, scope, dataSource, null, List.of(), 1);
	}

	/**
	 * Check that a duration can bound a {@link WaitMode#BLOCK} acquisition: positive
	 * (PostgreSQL reads a zero {@code lock_timeout} as "wait forever") and at most
	 * {@link #MAX_TIMEOUT}: for a timeout read from a setting, so that a bad value fails
	 * at startup naming the setting.
	 * @param timeout the duration
	 * @param setting what is being set, named in the message
	 * @throws IllegalArgumentException if it cannot
	 */
	public static void checkTimeout(Duration timeout, String setting) {
		Assert.isTrue(isValidTimeout(timeout), () -> setting + " " + TIMEOUT_RANGE + ", was " + print(timeout));
	}

	private static boolean isValidTimeout(Duration timeout) {
		return !timeout.isNegative() && !timeout.isZero() && timeout.compareTo(MAX_TIMEOUT) <= 0;
	}

	/** Print a duration in its largest whole unit ({@code 2s}), else in ISO-8601. */
	private static String print(Duration duration) {
		// Beyond a few thousand years, whole milliseconds would overflow a long.
		if (duration.getNano() % 1_000_000 != 0 || Math.abs(duration.getSeconds() / 2) > PRINTABLE_SECONDS) {
			return duration.toString();
		}
		long millis = duration.toMillis();
		if (millis == 0 || millis % 1000 != 0) {
			return millis + "ms";
		}
		long seconds = millis / 1000;
		if (seconds % 3600 == 0) {
			return (seconds / 3600) + "h";
		}
		return (seconds % 60 == 0) ? (seconds / 60) + "m" : seconds + "s";
	}

	/**
	 * Create a request for exclusive locks in the current transaction, waiting up to the
	 * default timeout.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @return the request
	 */
	public static LockRequest of(String namespace, @Nullable Object... keys) {
		return new LockRequest(namespace, Arrays.asList(keys), LockMode.EXCLUSIVE, WaitMode.BLOCK, null,
				LockScope.TRANSACTION, null);
	}

	/**
	 * Return a copy with the given lock mode.
	 * @param mode exclusive or shared
	 * @return the new request
	 */
	public LockRequest withMode(LockMode mode) {
		return new LockRequest(this.namespace, this.keys, mode, this.waitMode, this.timeout, this.scope,
				this.dataSource, this.caller, this.keyNames, this.permits);
	}

	/**
	 * Return a copy with the given wait mode.
	 * @param waitMode wait up to the timeout, try once, or skip
	 * @return the new request
	 */
	public LockRequest withWaitMode(WaitMode waitMode) {
		return new LockRequest(this.namespace, this.keys, this.mode, waitMode, this.timeout, this.scope,
				this.dataSource, this.caller, this.keyNames, this.permits);
	}

	/**
	 * Return a copy that waits at most the given timeout.
	 * @param timeout the wait bound (see {@link #checkTimeout}), or {@code null} for the
	 * default; only for {@link WaitMode#BLOCK}: clear it before a wait mode that never
	 * waits, as each copy is checked
	 * @return the new request
	 */
	public LockRequest withTimeout(@Nullable Duration timeout) {
		return new LockRequest(this.namespace, this.keys, this.mode, this.waitMode, timeout, this.scope,
				this.dataSource, this.caller, this.keyNames, this.permits);
	}

	/**
	 * Return a copy with the given scope.
	 * @param scope how long the locks last
	 * @return the new request
	 */
	public LockRequest withScope(LockScope scope) {
		return new LockRequest(this.namespace, this.keys, this.mode, this.waitMode, this.timeout, scope,
				this.dataSource, this.caller, this.keyNames, this.permits);
	}

	/**
	 * Return a copy that locks on the given {@code DataSource}: in
	 * {@link LockScope#TRANSACTION} scope, the one whose transaction to join where
	 * transactions of several are bound at once (which otherwise fails with
	 * {@link LockTransactionException}); in {@link LockScope#INVOCATION} scope, where the
	 * lock's own connection comes from. A name that is no {@code DataSource} bean fails
	 * the call, naming the known ones (docs/usage.md, "Several DataSources").
	 * @param dataSource the bean name, or {@code null} for the one the current
	 * transaction is bound to (for {@link LockScope#INVOCATION}: the primary one)
	 * @return the new request
	 */
	public LockRequest withDataSource(@Nullable String dataSource) {
		return new LockRequest(this.namespace, this.keys, this.mode, this.waitMode, this.timeout, this.scope,
				dataSource, this.caller, this.keyNames, this.permits);
	}

	/**
	 * Return a copy whose key errors and refusals name the caller first, and each key
	 * value by its name, as {@code @AdvisoryLocked} names its method and key expressions.
	 * @param caller what makes the request, not blank, or {@code null} for none
	 * @param keyNames the name of each key value, in order, or empty to call them by
	 * their index
	 * @return the new request
	 */
	public LockRequest withCaller(@Nullable String caller, List<String> keyNames) {
		return new LockRequest(this.namespace, this.keys, this.mode, this.waitMode, this.timeout, this.scope,
				this.dataSource, caller, keyNames, this.permits);
	}

	/**
	 * Return a copy that is a concurrency limit: at most {@code permits} calls, across
	 * every instance, hold a permit of this namespace and key value at once, each until
	 * its transaction (or, in {@link LockScope#INVOCATION} scope, its call) ends. A call
	 * takes a free permit or, with {@link WaitMode#BLOCK}, waits up to its timeout for
	 * one; a plain lock on the same namespace and value takes one of the permits
	 * ({@link AdvisoryLockKeys#permitSlot}). A limit has one key value and is exclusive
	 * (docs/usage.md, "Concurrency limits").
	 * @param permits 1 for a plain lock, up to {@link #MAX_PERMITS}
	 * @return the new request
	 */
	public LockRequest withPermits(int permits) {
		return new LockRequest(this.namespace, this.keys, this.mode, this.waitMode, this.timeout, this.scope,
				this.dataSource, this.caller, this.keyNames, permits);
	}

}
