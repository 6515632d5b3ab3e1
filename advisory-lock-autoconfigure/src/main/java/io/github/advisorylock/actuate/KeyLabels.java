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

package io.github.advisorylock.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Remembers the {@code namespace:value} of the keys this application derived most
 * recently, so that the {@link AdvisoryLocksEndpoint} can label the bare 64-bit keys of
 * {@code pg_locks}.
 *
 * <p>
 * Memory is bounded: at most {@code capacity} entries, each label cut to
 * {@value #MAX_LABEL_LENGTH} characters, so an entry takes at most about 450 bytes (a
 * typical {@code setup_request:<uuid>} label about 200), and the default 1024 entries at
 * most about 450 KB. The least recently locked key is forgotten first. Each acquisition
 * updates it under one short lock.
 *
 * <p>
 * Labels hold key values, which may be personal data (user ids): the endpoint that shows
 * them is not exposed over HTTP unless the application exposes it.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class KeyLabels implements LockAcquisitionListener {

	/** The default number of keys remembered. */
	public static final int DEFAULT_CAPACITY = 1024;

	/**
	 * The longest label kept; longer ones are cut and end with "...", and control
	 * characters are escaped, as key values are in every message of the library
	 * ({@link AdvisoryLockKeys#printable(String)}).
	 */
	public static final int MAX_LABEL_LENGTH = AdvisoryLockKeys.MAX_PRINTED_LENGTH;

	private final Map<Long, String> labels;

	/**
	 * Create a registry that remembers at most {@code capacity} keys.
	 * @param capacity the number of keys, positive
	 */
	public KeyLabels(int capacity) {
		Assert.isTrue(capacity > 0, () -> "Key label capacity must be positive, was " + capacity);
		this.labels = new LinkedHashMap<>(16, 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
				return size() > capacity;
			}

		};
	}

	@Override
	public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode, List<Long> keys,
			List<String> values) {
		String[] built = new String[keys.size()];
		for (int i = 0; i < built.length; i++) {
			built[i] = label(namespace, values.get(i));
		}
		synchronized (this.labels) {
			for (int i = 0; i < built.length; i++) {
				this.labels.put(keys.get(i), built[i]);
			}
		}
		return Acquisition.IGNORED;
	}

	private static String label(String namespace, String value) {
		return AdvisoryLockKeys.printable(namespace + ":" + value);
	}

	/**
	 * Return the label of a key, if it was derived recently.
	 * @param key the 64-bit key
	 * @return {@code namespace:value}, or {@code null}
	 */
	public @Nullable String labelOf(long key) {
		synchronized (this.labels) {
			return this.labels.get(key);
		}
	}

	/**
	 * Return how many keys are remembered.
	 * @return the number of labels
	 */
	public int size() {
		synchronized (this.labels) {
			return this.labels.size();
		}
	}

}
