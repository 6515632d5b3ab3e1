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

package io.github.advisorylock.test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;

/**
 * The keys the application has asked to lock since the last check, told by the
 * application's lock operations as to any {@link LockAcquisitionListener}: what
 * {@link AdvisoryLockTester#assertNoLockLeft()} looks for in {@code pg_locks}, so that
 * locks of other processes on the same database (test classes in parallel forks) are left
 * out.
 *
 * @author advisory-lock authors
 */
final class LockedKeys implements LockAcquisitionListener {

	private final Set<Long> keys = ConcurrentHashMap.newKeySet();

	@Override
	public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode, List<Long> keys,
			List<String> values) {
		this.keys.addAll(keys);
		return Acquisition.IGNORED;
	}

	@Override
	public Acquisition startingLimit(String namespace, LockScope scope, WaitMode waitMode, String value,
			List<Long> permitKeys) {
		this.keys.addAll(permitKeys);
		return Acquisition.IGNORED;
	}

	/**
	 * Return the keys asked for since the last call, and forget them.
	 * @return the keys
	 */
	Set<Long> drain() {
		Set<Long> drained = Set.copyOf(this.keys);
		this.keys.removeAll(drained);
		return drained;
	}

}
