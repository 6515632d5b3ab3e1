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

package io.github.advisorylock.core.plan;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.session.HeldSession;

/**
 * Invocation-scoped locks as a plan sees those that enclose a call, without a database:
 * their keys, mode and database. A test releases them when it ends, since a session
 * registers itself among those of the process.
 */
final class EnclosingSessions {

	private final List<Session> sessions = new ArrayList<>();

	/**
	 * Return a held session.
	 * @param mode its mode
	 * @param database what its locks are known by
	 * @param keys its keys
	 * @return the session
	 */
	HeldSession holding(LockMode mode, Object database, Long... keys) {
		List<String> values = new ArrayList<>();
		for (Long key : keys) {
			values.add("value-" + key);
		}
		Session session = new Session(mode, new LockKeys(List.of(keys), values), database);
		this.sessions.add(session);
		return session;
	}

	/**
	 * Release every session made, which takes it off the sessions of the process.
	 */
	void releaseAll() {
		this.sessions.forEach(Session::release);
	}

	private static final class Session extends HeldSession {

		Session(LockMode mode, LockKeys keys, Object database) {
			super("orders", mode, keys, database, Acquisition.IGNORED, System.nanoTime(), Duration.ofSeconds(30), null);
		}

		@Override
		protected void stopHeartbeat() {
		}

		@Override
		protected void heartbeatNow() {
		}

		@Override
		public long fencingToken() {
			throw new UnsupportedOperationException("A plan's test asks for no fencing token");
		}

		void release() {
			if (releasing()) {
				released();
			}
		}

	}

}
