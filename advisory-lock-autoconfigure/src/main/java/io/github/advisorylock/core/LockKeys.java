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

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ObjectUtils;

/**
 * The distinct 64-bit keys of one call, ascending as they are locked, each with its
 * value.
 *
 * @param keys the distinct keys, ascending
 * @param values the text of the value each key was derived from, in the same order
 * @author advisory-lock authors
 */
public record LockKeys(List<Long> keys, List<String> values) {

	private static final String NO_VALUE = "gave no value; every call must name the resource to lock";

	/**
	 * Expand collections and arrays, derive each value's key, drop duplicates and sort.
	 * @param namespace the namespace of the keys
	 * @param values the values; each one value, or a collection or array of values
	 * @param strategy the key derivation
	 * @param maxKeys the most distinct keys allowed
	 * @throws InvalidLockKeyException as {@link #resolve(LockRequest, LockSettings)}
	 */
	public static LockKeys resolve(String namespace, Collection<?> values, LockKeyStrategy strategy, int maxKeys) {
		// The timeout and the listeners play no part in the derivation.
		return resolve(LockRequest.of(namespace, values.toArray()),
				new LockSettings(Duration.ZERO, strategy, maxKeys, LockAcquisitionListeners.NONE));
	}

	/**
	 * Expand the request's collections and arrays, derive each value's key, drop
	 * duplicates and sort. A refusal names the caller and the key where the request does.
	 * @param request the namespace and the values, each one value, a collection or an
	 * array
	 * @param settings the key derivation and the most distinct keys allowed
	 * @throws InvalidLockKeyException if there is no value, a value is null, empty or
	 * unsupported ({@link InvalidLockKeyException#getKeyIndex()} tells which), or there
	 * are more distinct keys than allowed
	 */
	public static LockKeys resolve(LockRequest request, LockSettings settings) {
		String namespace = request.namespace();
		LockKeyStrategy strategy = settings.keyStrategy();
		int maxKeys = settings.maxKeys();
		Map<Long, String> byKey = new TreeMap<>();
		int index = 0;
		for (Object value : request.keys()) {
			for (Object element : expand(request, value, index)) {
				if (element == null) {
					throw refused(request, index, "Advisory lock key value must not be null",
							(value == null) ? "gave null; " + "every call must name the resource to lock"
									: "gave a null element; every "
											+ "value of a collection or array names a resource to lock");
				}
				long key;
				try {
					key = strategy.key(namespace, element);
				}
				catch (InvalidLockKeyException ex) {
					throw refusedByStrategy(request, index, ex);
				}
				byKey.putIfAbsent(key, render(element));
				if (byKey.size() > maxKeys) {
					throw refused(request, "An advisory lock call in namespace '" + namespace + "' names more than "
							+ maxKeys + " distinct keys, the limit set by advisory-lock.max-keys: lock a coarser "
							+ "resource, or raise the limit (each key takes an entry in PostgreSQL's shared lock "
							+ "table, sized by max_locks_per_transaction)");
				}
			}
			index++;
		}
		if (byKey.isEmpty()) {
			throw refused(request,
					"An advisory lock call in namespace '" + namespace + "' names no key: give at least one value");
		}
		return new LockKeys(List.copyOf(byKey.keySet()), List.copyOf(byKey.values()));
	}

	private static Iterable<?> expand(LockRequest request, @Nullable Object value, int index) {
		if (value instanceof Collection<?> collection) {
			if (collection.isEmpty()) {
				throw refused(request, index, "Advisory lock key collection must not be empty", NO_VALUE);
			}
			return collection;
		}
		if (value != null && value.getClass().isArray()) {
			Object[] array = ObjectUtils.toObjectArray(value);
			if (array.length == 0) {
				throw refused(request, index, "Advisory lock key array must not be empty", NO_VALUE);
			}
			return Arrays.asList(array);
		}
		return Collections.singletonList(value);
	}

	/** Refuse a value: as {@code unnamed}, or as what the named key {@code gave}. */
	private static InvalidLockKeyException refused(LockRequest request, int index, String unnamed, String gave) {
		String problem = request.keyNames().isEmpty() ? unnamed : "key '" + request.keyNames().get(index) + "' " + gave;
		return new InvalidLockKeyException(LockFailures.inCaller(request, problem), index, null);
	}

	/** Refuse the request's values together, naming every key that has a name. */
	private static InvalidLockKeyException refused(LockRequest request, String problem) {
		List<String> names = request.keyNames();
		String named = names.isEmpty() ? problem
				: ((names.size() == 1) ? "key '" : "keys '") + String.join("', '", names) + "': " + problem;
		return new InvalidLockKeyException(LockFailures.inCaller(request, named));
	}

	/**
	 * Return the keys a {@code BLOCK} waits for: the one its try found held and those
	 * after.
	 * @param busyKey the key the try found held, one of these
	 * @return the keys to wait for, in order
	 */
	public List<Long> waitedFor(long busyKey) {
		return this.keys.subList(this.keys.indexOf(busyKey), this.keys.size());
	}

	/** Return the strategy's refusal, naming the refused value's key where it can. */
	private static InvalidLockKeyException refusedByStrategy(LockRequest request, int index,
			InvalidLockKeyException ex) {
		if (ex.getKeyIndex() == index && request.caller() == null && request.keyNames().isEmpty()) {
			return ex;
		}
		String problem = String.valueOf(ex.getMessage());
		if (!request.keyNames().isEmpty()) {
			problem = "key '" + request.keyNames().get(index) + "': " + problem;
		}
		InvalidLockKeyException refused = new InvalidLockKeyException(LockFailures.inCaller(request, problem), index,
				ex.getCause());
		refused.setStackTrace(ex.getStackTrace());
		return refused;
	}

	private static String render(Object value) {
		try {
			return AdvisoryLockKeys.text(value);
		}
		catch (InvalidLockKeyException ex) {
			// A custom strategy may accept types the standard derivation refuses.
			return String.valueOf(value);
		}
	}

}
