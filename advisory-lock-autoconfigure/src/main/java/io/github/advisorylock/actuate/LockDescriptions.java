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

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLimitDescriptor;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLockDescriptor;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLocksDescriptor;
import io.github.advisorylock.actuate.KeyLabels.Label;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.LockActivity;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.Snapshot;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code advisorylocks} endpoint answers for what was read, on either driver:
 * each lock with its label, where this application derived its key recently, and the
 * locks of a concurrency limit's permits gathered as the limit's one entry.
 *
 * @author advisory-lock authors
 */
final class LockDescriptions {

	private LockDescriptions() {
	}

	static AdvisoryLocksDescriptor describe(Snapshot snapshot, @Nullable KeyLabels labels) {
		List<LockActivity> locks = snapshot.locks();
		Map<String, Snapshot> targets = snapshot.targets();
		if (targets != null) {
			Map<String, AdvisoryLocksDescriptor> described = new LinkedHashMap<>();
			targets.forEach((key, target) -> described.put(key, describe(target, labels)));
			return new AdvisoryLocksDescriptor(null, null, snapshot.truncated(), Collections.unmodifiableMap(described),
					null);
		}
		if (locks == null) {
			return new AdvisoryLocksDescriptor(null, null, snapshot.truncated(), null, snapshot.error());
		}
		List<AdvisoryLockDescriptor> plain = new ArrayList<>();
		Map<Long, Limit> limits = new LinkedHashMap<>();
		for (LockActivity lock : locks) {
			Label label = (lock.key() != null && labels != null) ? labels.of(lock.key()) : null;
			AdvisoryLockDescriptor described = describe(lock, (label != null) ? label.text() : null);
			if (label != null && label.permits() > 1) {
				limits.computeIfAbsent(label.limitKey(), (key) -> new Limit(label)).add(described);
			}
			else {
				plain.add(described);
			}
		}
		return new AdvisoryLocksDescriptor(List.copyOf(plain), limits.values().stream().map(Limit::describe).toList(),
				snapshot.truncated());
	}

	private static AdvisoryLockDescriptor describe(LockActivity lock, @Nullable String label) {
		return new AdvisoryLockDescriptor(lock.pid(), lock.key(), lock.keyPair(), label, lock.mode(), lock.granted(),
				lock.waitStart(), lock.transactionAge(), lock.state(), lock.applicationName(), lock.waitEventType(),
				lock.waitEvent(), lock.query());
	}

	/** The locks of one limit's permits, gathered. */
	private static final class Limit {

		private final Label label;

		private final List<AdvisoryLockDescriptor> holders = new ArrayList<>();

		private final List<AdvisoryLockDescriptor> waiters = new ArrayList<>();

		Limit(Label label) {
			this.label = label;
		}

		void add(AdvisoryLockDescriptor lock) {
			(lock.granted() ? this.holders : this.waiters).add(lock);
		}

		AdvisoryLimitDescriptor describe() {
			return new AdvisoryLimitDescriptor(this.label.limitKey(), this.label.text(), this.label.permits(),
					List.copyOf(this.holders), List.copyOf(this.waiters));
		}

	}

}
