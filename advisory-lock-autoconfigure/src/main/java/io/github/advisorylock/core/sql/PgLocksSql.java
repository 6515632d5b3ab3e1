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
 * The reads of {@code pg_locks} both drivers run: the holders of a busy lock, and the
 * {@code advisorylocks} endpoint's list, with their fragments. Reading {@code pg_locks}
 * briefly takes every partition of PostgreSQL's lock table, so these reads never run on a
 * successful acquisition's path. Internal: used by the driver adapters and the
 * {@code pg_locks} readers, not API.
 */
public final class PgLocksSql {

	/** The advisory locks of the current database, for which {@code database} is set. */
	public static final String ADVISORY_IN_THIS_DATABASE = "l.locktype OPERATOR(pg_catalog.=) 'advisory' "
			+ "AND l.database OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_database "
			+ "WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database())";

	/** A bigint key from {@code classid} (high half) and {@code objid}, objsubid 1. */
	public static final String KEY = "((l.classid::bigint OPERATOR(pg_catalog.<<) 32) "
			+ "OPERATOR(pg_catalog.|) l.objid::bigint)";

	/** How long the session's transaction has been open, in milliseconds. */
	public static final String TRANSACTION_AGE_MILLIS = "(extract(epoch FROM pg_catalog.clock_timestamp() "
			+ "OPERATOR(pg_catalog.-) a.xact_start) OPERATOR(pg_catalog.*) 1000)::bigint";

	/**
	 * The advisory locks of this database and their sessions, up to its {@code WHERE}.
	 */
	private static final String FROM_LOCKS_AND_SESSIONS = "FROM pg_catalog.pg_locks AS l "
			+ "LEFT JOIN pg_catalog.pg_stat_activity AS a ON a.pid OPERATOR(pg_catalog.=) l.pid WHERE "
			+ ADVISORY_IN_THIS_DATABASE;

	/** The most holders a busy error names. */
	public static final int MAX_HOLDERS = 5;

	/**
	 * The granted advisory locks that conflict with a request: on one of its keys, in
	 * another session, exclusive for a shared request. Parameters, as {@code ?}
	 * ({@link LockSql#numbered} for R2DBC): the keys ({@code bigint[]}), the requesting
	 * session's pid ({@code NULL} for this one), whether the request is shared, the most
	 * rows. Columns: {@code pid}, {@code key}, {@code mode}, {@code application_name},
	 * {@code state}, {@code transaction_age_ms}, {@code wait_event_type},
	 * {@code wait_event}.
	 */
	public static final String HOLDERS = "SELECT l.pid, " + KEY + " AS key, l.mode, a.application_name, a.state, "
			+ TRANSACTION_AGE_MILLIS + " AS transaction_age_ms, a.wait_event_type, a.wait_event "
			+ FROM_LOCKS_AND_SESSIONS + " AND l.objsubid OPERATOR(pg_catalog.=) 1 AND l.granted AND " + KEY
			+ " OPERATOR(pg_catalog.=) ANY (?::bigint[]) "
			+ "AND l.pid OPERATOR(pg_catalog.<>) coalesce(?::integer, pg_catalog.pg_backend_pid()) "
			+ "AND (NOT ?::boolean OR l.mode OPERATOR(pg_catalog.=) 'ExclusiveLock') "
			+ "ORDER BY a.xact_start NULLS LAST, l.pid LIMIT ?";

	/**
	 * Every advisory lock of the current database, held and awaited, with its session, as
	 * the {@code advisorylocks} endpoint shows it. {@code waitstart} is read through
	 * {@code to_jsonb}, as PostgreSQL 12 and 13 lack the column ({@code NULL} there).
	 * Parameters, as {@code ?}: whether to include the query text, the most rows.
	 * Columns: {@code pid}, {@code objsubid}, {@code classid}, {@code objid}, {@code key}
	 * (for a {@code bigint} key), {@code mode}, {@code granted}, {@code waitstart},
	 * {@code transaction_age_ms}, {@code state}, {@code application_name},
	 * {@code wait_event_type}, {@code wait_event}, {@code query}.
	 */
	public static final String ALL_LOCKS = "SELECT l.pid, l.objsubid, l.classid::bigint AS classid, "
			+ "l.objid::bigint AS objid, CASE WHEN l.objsubid OPERATOR(pg_catalog.=) 1 THEN " + KEY
			+ " END AS key, l.mode, l.granted, "
			+ "(pg_catalog.to_jsonb(l) OPERATOR(pg_catalog.->>) 'waitstart')::timestamp with time zone AS waitstart, "
			+ TRANSACTION_AGE_MILLIS
			+ " AS transaction_age_ms, a.state, a.application_name, a.wait_event_type, a.wait_event, "
			+ "CASE WHEN ?::boolean THEN a.query END AS query " + FROM_LOCKS_AND_SESSIONS
			+ " ORDER BY l.objsubid, l.classid, l.objid, l.granted DESC, waitstart NULLS FIRST, l.pid LIMIT ?";

	private PgLocksSql() {
	}

}
