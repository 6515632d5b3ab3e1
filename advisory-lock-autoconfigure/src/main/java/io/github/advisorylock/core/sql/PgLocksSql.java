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

package io.github.advisorylock.core.sql;

/**
 * The fragments that the readers of {@code pg_locks} use, and the two statements both
 * drivers run: the one that finds the holders of a busy lock (JDBC's {@code pglocks}
 * diagnosis, and the R2DBC path's own), and the one behind the {@code advisorylocks}
 * endpoint. The other statements stay next to the code that binds their parameters and
 * reads their rows. Internal: used by the driver adapters and the {@code pg_locks}
 * readers, not API.
 *
 * <p>
 * Reading {@code pg_locks} briefly takes every partition of PostgreSQL's lock table, so
 * these reads never run on the path of a successful acquisition.
 */
public final class PgLocksSql {

	/**
	 * The advisory locks of the current database: {@code pg_locks.database} is set for
	 * them.
	 */
	public static final String ADVISORY_IN_THIS_DATABASE = "l.locktype = 'advisory' "
			+ "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())";

	/**
	 * A bigint key is split into {@code classid} (high half) and {@code objid} (low
	 * half), with objsubid 1.
	 */
	public static final String KEY = "((l.classid::bigint << 32) | l.objid::bigint)";

	/** How long the session's transaction has been open, in milliseconds. */
	public static final String TRANSACTION_AGE_MILLIS = "(extract(epoch FROM clock_timestamp() - a.xact_start) "
			+ "* 1000)::bigint";

	/** The most holders a busy error names. */
	public static final int MAX_HOLDERS = 5;

	/**
	 * The granted advisory locks that conflict with a request: on one of its keys, in
	 * another session, and for a shared request exclusive only. Parameters, written
	 * {@code ?} for JDBC ({@link LockSql#numbered} writes them for R2DBC): the
	 * {@code bigint[]} of keys, the pid of the requesting session ({@code NULL} for this
	 * session's), whether the request is shared, and the most rows. Columns: {@code pid},
	 * {@code key}, {@code mode}, {@code application_name}, {@code state},
	 * {@code transaction_age_ms}, {@code wait_event_type}, {@code wait_event}.
	 */
	public static final String HOLDERS = "SELECT l.pid, " + KEY + " AS key, l.mode, a.application_name, a.state, "
			+ TRANSACTION_AGE_MILLIS + " AS transaction_age_ms, a.wait_event_type, a.wait_event "
			+ "FROM pg_locks AS l LEFT JOIN pg_stat_activity AS a ON a.pid = l.pid WHERE " + ADVISORY_IN_THIS_DATABASE
			+ " AND l.objsubid = 1 AND l.granted AND " + KEY + " = ANY (?::bigint[]) "
			+ "AND l.pid <> coalesce(?::int, pg_backend_pid()) AND (NOT ?::boolean OR l.mode = 'ExclusiveLock') "
			+ "ORDER BY a.xact_start NULLS LAST, l.pid LIMIT ?";

	/**
	 * Every advisory lock of the current database, held and awaited, with its session:
	 * what the {@code advisorylocks} endpoint shows, on either driver. {@code waitstart}
	 * is read through {@code to_jsonb} because PostgreSQL 12 and 13 do not have the
	 * column (it is then {@code NULL}). Parameters, written {@code ?}: whether to include
	 * the query text, and the most rows. Columns: {@code pid}, {@code objsubid},
	 * {@code classid}, {@code objid}, {@code key} (for a {@code bigint} key),
	 * {@code mode}, {@code granted}, {@code waitstart}, {@code transaction_age_ms},
	 * {@code state}, {@code application_name}, {@code wait_event_type},
	 * {@code wait_event}, {@code query}.
	 */
	public static final String ALL_LOCKS = "SELECT l.pid, l.objsubid, l.classid::bigint AS classid, "
			+ "l.objid::bigint AS objid, CASE WHEN l.objsubid = 1 THEN " + KEY + " END AS key, l.mode, "
			+ "l.granted, (to_jsonb(l) ->> 'waitstart')::timestamptz AS waitstart, " + TRANSACTION_AGE_MILLIS
			+ " AS transaction_age_ms, a.state, a.application_name, a.wait_event_type, a.wait_event, "
			+ "CASE WHEN ?::boolean THEN a.query END AS query "
			+ "FROM pg_locks AS l LEFT JOIN pg_stat_activity AS a ON a.pid = l.pid WHERE " + ADVISORY_IN_THIS_DATABASE
			+ " ORDER BY l.objsubid, l.classid, l.objid, l.granted DESC, waitstart NULLS FIRST, l.pid LIMIT ?";

	private PgLocksSql() {
	}

}
