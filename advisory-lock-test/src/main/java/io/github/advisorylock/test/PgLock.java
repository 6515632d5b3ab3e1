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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.advisorylock.core.sql.PgLocksSql;
import io.github.advisorylock.test.TestSessions.TestSession;

/**
 * One advisory lock of the application's database in {@code pg_locks}, held or awaited.
 *
 * @param pid the backend process id of the session
 * @param key the 64-bit key
 * @param fence whether it is the fence lock of a fenced write of the key (its two-int
 * form), rather than the key's lock
 * @param mode the lock mode, {@code ExclusiveLock} or {@code ShareLock}
 * @param granted whether it is held, rather than awaited
 * @author advisory-lock authors
 */
record PgLock(int pid, long key, boolean fence, String mode, boolean granted) {

	/**
	 * The advisory locks of the session's database (other databases of the server are
	 * left out), in the library's own terms: a bigint key is stored with
	 * {@code objsubid = 1}, and a fence lock keeps the same 64 bits with
	 * {@code objsubid = 2}.
	 */
	private static final String ADVISORY_LOCKS = "SELECT l.pid, " + PgLocksSql.KEY + " AS key, "
			+ "l.objsubid OPERATOR(pg_catalog.=) 2 AS fence, l.mode, l.granted FROM pg_catalog.pg_locks l WHERE "
			+ PgLocksSql.ADVISORY_IN_THIS_DATABASE + " ORDER BY key, l.granted DESC, l.pid";

	static List<PgLock> read(TestSession session) {
		List<PgLock> locks = new ArrayList<>();
		for (Map<String, Object> row : session.query(ADVISORY_LOCKS)) {
			locks.add(new PgLock(((Number) row.get("pid")).intValue(), ((Number) row.get("key")).longValue(),
					(Boolean) row.get("fence"), (String) row.get("mode"), (Boolean) row.get("granted")));
		}
		return locks;
	}

	@Override
	public String toString() {
		return "session " + this.pid + (this.granted ? " holds " : " awaits ") + (this.fence ? "the fence of " : "")
				+ "key " + this.key + " (" + this.mode + ")";
	}

}
