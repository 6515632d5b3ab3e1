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

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLockDescriptor;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLocksDescriptor;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.LockActivity;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.Snapshot;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code advisorylocks} endpoint answers for what was read, on either driver:
 * each lock with its label, where this application derived its key recently.
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
			return new AdvisoryLocksDescriptor(null, snapshot.truncated(), Collections.unmodifiableMap(described),
					null);
		}
		return new AdvisoryLocksDescriptor(
				(locks != null) ? locks.stream().map((lock) -> describe(lock, labels)).toList() : null,
				snapshot.truncated(), null, snapshot.error());
	}

	private static AdvisoryLockDescriptor describe(LockActivity lock, @Nullable KeyLabels labels) {
		String label = (lock.key() != null && labels != null) ? labels.labelOf(lock.key()) : null;
		return new AdvisoryLockDescriptor(lock.pid(), lock.key(), lock.keyPair(), label, lock.mode(), lock.granted(),
				lock.waitStart(), lock.transactionAge(), lock.state(), lock.applicationName(), lock.waitEventType(),
				lock.waitEvent(), lock.query());
	}

}
