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

package io.github.advisorylock.pglocks;

/**
 * The fragments that both readers of {@code pg_locks} use. Each statement itself stays
 * next to the code that binds its parameters and reads its rows.
 *
 * <p>
 * Reading {@code pg_locks} briefly takes every partition of PostgreSQL's lock table, so
 * these reads never run on the path of a successful acquisition.
 */
final class PgLocksSql {

	/**
	 * The advisory locks of the current database: {@code pg_locks.database} is set for
	 * them.
	 */
	static final String ADVISORY_IN_THIS_DATABASE = "l.locktype = 'advisory' "
			+ "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())";

	/**
	 * A bigint key is split into {@code classid} (high half) and {@code objid} (low
	 * half), with objsubid 1.
	 */
	static final String KEY = "((l.classid::bigint << 32) | l.objid::bigint)";

	/** How long the session's transaction has been open, in milliseconds. */
	static final String TRANSACTION_AGE_MILLIS = "(extract(epoch FROM clock_timestamp() - a.xact_start) "
			+ "* 1000)::bigint";

	private PgLocksSql() {
	}

}
