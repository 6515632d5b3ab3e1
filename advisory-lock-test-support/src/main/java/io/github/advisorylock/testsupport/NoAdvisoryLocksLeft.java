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

package io.github.advisorylock.testsupport;

import java.util.List;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit extension that fails a test that leaves any advisory lock held or awaited in the
 * test database, the fence locks of fenced writes included: every lock must end with its
 * transaction. It never starts the test database itself.
 */
public class NoAdvisoryLocksLeft implements AfterEachCallback {

	@Override
	public void afterEach(ExtensionContext context) {
		if (!TestDatabase.started()) {
			// Nothing has connected to a server that never started: no lock to look for,
			// and no reason to start it.
			return;
		}
		PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());
		List<PgLocks.AdvisoryLock> left = pgLocks.all();
		if (!left.isEmpty()) {
			throw new AssertionError("Advisory locks outlived the test " + context.getDisplayName() + ": " + left);
		}
		List<PgLocks.AdvisoryLock> fences = pgLocks.fences();
		if (!fences.isEmpty()) {
			throw new AssertionError(
					"Fence locks of fenced writes outlived the test " + context.getDisplayName() + ": " + fences);
		}
		List<PgLocks.AdvisoryLock> markers = pgLocks.markers();
		if (!markers.isEmpty()) {
			throw new AssertionError(
					"Markers of lock sessions outlived the test " + context.getDisplayName() + ": " + markers);
		}
	}

}
