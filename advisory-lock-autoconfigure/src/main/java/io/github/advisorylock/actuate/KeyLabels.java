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
 * At most {@code capacity} entries, the least recently locked key forgotten first, each
 * label cut to {@value #MAX_LABEL_LENGTH} characters: at most about 450 bytes an entry. A
 * limit of {@code permits = N} takes N entries, one per permit, so that the endpoint can
 * show the limit as one entry. Labels hold key values, which may be personal data.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class KeyLabels implements LockAcquisitionListener {

	/** The default number of keys remembered. */
	public static final int DEFAULT_CAPACITY = 1024;

	/**
	 * The longest label kept; labels are cut and escaped as
	 * {@link AdvisoryLockKeys#printable(String)} prints key values in messages.
	 */
	public static final int MAX_LABEL_LENGTH = AdvisoryLockKeys.MAX_PRINTED_LENGTH;

	private final Map<Long, Label> labels;

	/**
	 * Create a registry that remembers at most {@code capacity} keys.
	 * @param capacity the number of keys, positive
	 */
	public KeyLabels(int capacity) {
		Assert.isTrue(capacity > 0, () -> "Key label capacity must be positive, was " + capacity);
		this.labels = new LinkedHashMap<>(16, 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<Long, Label> eldest) {
				return size() > capacity;
			}

		};
	}

	@Override
	public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode, List<Long> keys,
			List<String> values) {
		Label[] built = new Label[keys.size()];
		for (int i = 0; i < built.length; i++) {
			built[i] = new Label(text(namespace, values.get(i)), keys.get(i), 0, 1);
		}
		synchronized (this.labels) {
			for (int i = 0; i < built.length; i++) {
				// A plain lock of a limit's key (its permit 0) keeps the limit's label.
				this.labels.merge(keys.get(i), built[i], (known, plain) -> (known.permits() > 1) ? known : plain);
			}
		}
		return Acquisition.IGNORED;
	}

	@Override
	public Acquisition startingLimit(String namespace, LockScope scope, WaitMode waitMode, String value,
			List<Long> permitKeys) {
		String text = text(namespace, value);
		long limitKey = permitKeys.get(0);
		synchronized (this.labels) {
			for (int permit = 0; permit < permitKeys.size(); permit++) {
				this.labels.put(permitKeys.get(permit), new Label(text, limitKey, permit, permitKeys.size()));
			}
		}
		return Acquisition.IGNORED;
	}

	private static String text(String namespace, String value) {
		return AdvisoryLockKeys.printable(namespace + ":" + value);
	}

	/**
	 * Return the label of a key, if it was derived recently.
	 * @param key the 64-bit key
	 * @return {@code namespace:value}, or {@code null}
	 */
	public @Nullable String labelOf(long key) {
		Label label = of(key);
		return (label != null) ? label.text() : null;
	}

	@Nullable Label of(long key) {
		synchronized (this.labels) {
			return this.labels.get(key);
		}
	}

	/** Return how many keys are remembered. */
	public int size() {
		synchronized (this.labels) {
			return this.labels.size();
		}
	}

	/**
	 * What is known of a key.
	 *
	 * @param text {@code namespace:value}
	 * @param limitKey the key of the limit it is a permit of (its permit 0), or the key
	 * itself for a plain lock
	 * @param permit which permit of the limit, from 0
	 * @param permits the limit's permits, 1 for a plain lock
	 */
	record Label(String text, long limitKey, int permit, int permits) {

	}

}
