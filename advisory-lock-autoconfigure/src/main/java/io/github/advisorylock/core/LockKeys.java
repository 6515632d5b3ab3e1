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

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockKeyStrategy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ObjectUtils;

/**
 * The distinct 64-bit keys of one call in ascending order, which is the order they are
 * locked in, each with the value it was derived from. Internal: used by the driver
 * adapters, not API.
 *
 * @param keys the distinct keys, ascending
 * @param values the text of the value each key was derived from, in the same order
 * @author advisory-lock authors
 */
public record LockKeys(List<Long> keys, List<String> values) {

	/**
	 * Expand collections and arrays, derive each value's key, drop duplicates and sort.
	 * @param namespace the namespace of the keys
	 * @param values the values; each one value, or a collection or array of values
	 * @param strategy the key derivation
	 * @param maxKeys the most distinct keys allowed
	 * @return the keys
	 * @throws InvalidLockKeyException if there is no value, a value is null, empty or
	 * unsupported (its {@link InvalidLockKeyException#getKeyIndex() key index} tells
	 * which), or there are more than {@code maxKeys} distinct keys
	 */
	public static LockKeys resolve(String namespace, Collection<?> values, LockKeyStrategy strategy, int maxKeys) {
		Map<Long, String> byKey = new TreeMap<>();
		int index = 0;
		for (Object value : values) {
			for (Object element : expand(value, index)) {
				if (element == null) {
					throw new InvalidLockKeyException("Advisory lock key value must not be null", index, null);
				}
				byKey.putIfAbsent(key(namespace, element, strategy, index), render(element));
				if (byKey.size() > maxKeys) {
					throw new InvalidLockKeyException("An advisory lock call in namespace '" + namespace
							+ "' names more " + "than " + maxKeys
							+ " distinct keys, the limit set by advisory-lock.max-keys: lock a "
							+ "coarser resource, or raise the limit (each key takes an entry in PostgreSQL's shared lock "
							+ "table, sized by max_locks_per_transaction)");
				}
			}
			index++;
		}
		if (byKey.isEmpty()) {
			throw new InvalidLockKeyException(
					"An advisory lock call in namespace '" + namespace + "' names no key: give at least one value");
		}
		return new LockKeys(List.copyOf(byKey.keySet()), List.copyOf(byKey.values()));
	}

	/**
	 * Return the elements of a collection or array, or the value itself.
	 */
	private static Iterable<?> expand(@Nullable Object value, int index) {
		if (value instanceof Collection<?> collection) {
			if (collection.isEmpty()) {
				throw new InvalidLockKeyException("Advisory lock key collection must not be empty", index, null);
			}
			return collection;
		}
		if (value != null && value.getClass().isArray()) {
			Object[] array = ObjectUtils.toObjectArray(value);
			if (array.length == 0) {
				throw new InvalidLockKeyException("Advisory lock key array must not be empty", index, null);
			}
			return Arrays.asList(array);
		}
		return Collections.singletonList(value);
	}

	/**
	 * Return the keys a {@code BLOCK} waits for once its try found one held: that key and
	 * those after it (the ones before it are taken).
	 * @param busyKey the key the try found held, one of these
	 * @return the keys to wait for, in order
	 */
	public List<Long> waitedFor(long busyKey) {
		return this.keys.subList(this.keys.indexOf(busyKey), this.keys.size());
	}

	/**
	 * Derive the key of a value, telling in the strategy's refusal which value of the
	 * call it refused.
	 */
	private static long key(String namespace, Object value, LockKeyStrategy strategy, int index) {
		try {
			return strategy.key(namespace, value);
		}
		catch (InvalidLockKeyException ex) {
			if (ex.getKeyIndex() == index) {
				throw ex;
			}
			InvalidLockKeyException refused = new InvalidLockKeyException(String.valueOf(ex.getMessage()), index,
					ex.getCause());
			refused.setStackTrace(ex.getStackTrace());
			throw refused;
		}
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
