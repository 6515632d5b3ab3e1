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

package io.github.advisorylock.jdbc;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.WaitMode;

/**
 * The SQL that acquires advisory locks: one statement, so one round trip, per acquisition.
 *
 * <p>Every statement returns one row: {@code isolation}, the transaction's effective isolation level;
 * {@code lockable}, whether that level allows a lock; and {@code busy_key}, the first key a {@code TRY} found held (or
 * {@code NULL}). Its {@code CASE} runs its branches in order, which sequences the work inside a single
 * {@code SELECT}:
 * <ol>
 * <li>a transaction above READ COMMITTED takes no lock at all (the caller then refuses it);</li>
 * <li>{@code BLOCK} takes the locks in array order (the caller sorts the keys). Before each key it sets
 * {@code lock_timeout} for this transaction to what is left until one deadline, because PostgreSQL applies
 * {@code lock_timeout} to each lock wait on its own: without the deadline, n keys could wait n times the timeout.
 * Then it restores the previous {@code lock_timeout}. The previous value and the deadline are read in a
 * {@code MATERIALIZED} CTE: a plain subquery would be folded into the outer query and read the new value;</li>
 * <li>{@code BLOCK} of a single key, the common case, has one wait only: it sets {@code lock_timeout} to the timeout,
 * locks, and restores, without the deadline arithmetic and the key array;</li>
 * <li>{@code TRY} tries the keys in array order and stops at the first one held ({@code LIMIT 1}). An
 * {@code ORDER BY} or {@code DISTINCT} there would make PostgreSQL try every key before choosing one: keep it out.</li>
 * </ol>
 * A {@code BLOCK} that runs out of time fails with SQLSTATE {@code 55P03} and aborts the transaction, which also
 * discards the {@code lock_timeout} it set.
 *
 * <p>Each acquisition statement opens with a comment naming its namespace ({@code /* advisory-lock setup_request *}{@code /}),
 * so that {@code pg_stat_activity.query} tells an operator what a waiting session waits for. Key values never appear
 * in it. The text therefore differs per namespace, and pgjdbc prepares each distinct text on the server once it has
 * run {@code prepareThreshold} times on a connection: at most one prepared statement per namespace, mode and wait mode
 * on each connection, within pgjdbc's per-connection statement cache.
 *
 * <p>The other statements read {@code pg_locks} and {@code pg_stat_activity} for the diagnosis of a busy lock and for
 * the Actuator endpoint. Reading {@code pg_locks} briefly takes every partition of PostgreSQL's lock table, so they
 * never run on the path of a successful acquisition.
 *
 * @author advisory-lock authors
 */
final class AdvisoryLockStatements {

	/** Whether the isolation level allows a lock: PostgreSQL runs READ UNCOMMITTED as READ COMMITTED. */
	private static final String LOCKABLE = "current_setting('transaction_isolation') IN ('read committed', "
			+ "'read uncommitted')";

	/** What is left until the deadline, as a {@code lock_timeout}; at least 1ms, as 0 would mean "no timeout". */
	private static final String REMAINING = "greatest(1, ceil(extract(epoch FROM previous.deadline - "
			+ "clock_timestamp()) * 1000))::bigint || 'ms'";

	private static final String BLOCK = """
			WITH previous AS MATERIALIZED (
			  SELECT current_setting('lock_timeout') AS lock_timeout,
			         clock_timestamp() + ? * interval '1 millisecond' AS deadline)
			SELECT current_setting('transaction_isolation') AS isolation,
			       %1$s AS lockable,
			       CASE
			         WHEN NOT (%1$s) THEN NULL
			         WHEN (SELECT count(*) FROM unnest(?::bigint[]) AS k
			               CROSS JOIN LATERAL %2$s(CASE WHEN set_config('lock_timeout', %3$s, true) IS NOT NULL THEN k END)
			              ) IS NULL THEN NULL
			         WHEN set_config('lock_timeout', previous.lock_timeout, true) IS NULL THEN NULL
			       END::bigint AS busy_key
			FROM previous""";

	/**
	 * {@code BLOCK} for a single key, the common case: one wait, so the timeout is the {@code lock_timeout} itself,
	 * and the deadline arithmetic, the key array and the lateral join of the general statement (a good part of a
	 * short transaction's cost) are left out.
	 */
	private static final String BLOCK_ONE = """
			WITH previous AS MATERIALIZED (
			  SELECT current_setting('lock_timeout') AS lock_timeout)
			SELECT current_setting('transaction_isolation') AS isolation,
			       %1$s AS lockable,
			       CASE
			         WHEN NOT (%1$s) THEN NULL
			         WHEN set_config('lock_timeout', ? || 'ms', true) IS NULL THEN NULL
			         WHEN %2$s(?) IS NULL THEN NULL
			         WHEN set_config('lock_timeout', previous.lock_timeout, true) IS NULL THEN NULL
			       END::bigint AS busy_key
			FROM previous""";

	private static final String TRY = """
			SELECT current_setting('transaction_isolation') AS isolation,
			       %1$s AS lockable,
			       CASE
			         WHEN %1$s THEN (SELECT k FROM unnest(?::bigint[]) AS k WHERE NOT %2$s(k) LIMIT 1)
			       END AS busy_key""";

	private static final String BLOCK_EXCLUSIVE = BLOCK.formatted(LOCKABLE, "pg_advisory_xact_lock", REMAINING);

	private static final String BLOCK_SHARED = BLOCK.formatted(LOCKABLE, "pg_advisory_xact_lock_shared", REMAINING);

	private static final String BLOCK_ONE_EXCLUSIVE = BLOCK_ONE.formatted(LOCKABLE, "pg_advisory_xact_lock");

	private static final String BLOCK_ONE_SHARED = BLOCK_ONE.formatted(LOCKABLE, "pg_advisory_xact_lock_shared");

	private static final String TRY_EXCLUSIVE = TRY.formatted(LOCKABLE, "pg_try_advisory_xact_lock");

	private static final String TRY_SHARED = TRY.formatted(LOCKABLE, "pg_try_advisory_xact_lock_shared");

	/** The advisory locks of the current database: {@code pg_locks.database} is set for them. */
	private static final String ADVISORY_IN_THIS_DATABASE = "l.locktype = 'advisory' "
			+ "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())";

	/** A bigint key is split into {@code classid} (high half) and {@code objid} (low half), with objsubid 1. */
	private static final String KEY = "((l.classid::bigint << 32) | l.objid::bigint)";

	private static final String TRANSACTION_AGE_MILLIS = "(extract(epoch FROM clock_timestamp() - a.xact_start) "
			+ "* 1000)::bigint";

	/**
	 * The granted advisory locks that conflict with a request: on one of its keys, in another session, and for a
	 * shared request exclusive only. Parameters: the {@code bigint[]} of keys, the pid of the requesting session
	 * ({@code NULL} for this session's), whether the request is shared, and the most rows.
	 */
	private static final String HOLDERS = "SELECT l.pid, " + KEY + " AS key, l.mode, a.application_name, a.state, "
			+ TRANSACTION_AGE_MILLIS + " AS transaction_age_ms, a.wait_event_type, a.wait_event "
			+ "FROM pg_locks AS l LEFT JOIN pg_stat_activity AS a ON a.pid = l.pid "
			+ "WHERE " + ADVISORY_IN_THIS_DATABASE + " AND l.objsubid = 1 AND l.granted "
			+ "AND " + KEY + " = ANY (?::bigint[]) AND l.pid <> coalesce(?::int, pg_backend_pid()) "
			+ "AND (NOT ?::boolean OR l.mode = 'ExclusiveLock') "
			+ "ORDER BY a.xact_start NULLS LAST, l.pid LIMIT ?";

	/**
	 * Every advisory lock of the current database, held and awaited, with its session. {@code waitstart} is read
	 * through {@code to_jsonb} because PostgreSQL 12 and 13 do not have the column (it is then {@code NULL}).
	 * Parameters: whether to include the query text, and the most rows.
	 */
	private static final String ALL_LOCKS = "SELECT l.pid, l.objsubid, l.classid::bigint AS classid, "
			+ "l.objid::bigint AS objid, CASE WHEN l.objsubid = 1 THEN " + KEY + " END AS key, l.mode, l.granted, "
			+ "(to_jsonb(l) ->> 'waitstart')::timestamptz AS waitstart, " + TRANSACTION_AGE_MILLIS
			+ " AS transaction_age_ms, a.state, a.application_name, a.wait_event_type, a.wait_event, "
			+ "CASE WHEN ?::boolean THEN a.query END AS query "
			+ "FROM pg_locks AS l LEFT JOIN pg_stat_activity AS a ON a.pid = l.pid "
			+ "WHERE " + ADVISORY_IN_THIS_DATABASE + " "
			+ "ORDER BY l.objsubid, l.classid, l.objid, l.granted DESC, waitstart NULLS FIRST, l.pid LIMIT ?";

	/** Bounds the comment, so that a long namespace cannot push the statement out of {@code pg_stat_activity}. */
	private static final int MAX_COMMENT_NAMESPACE = 100;

	private AdvisoryLockStatements() {
	}

	/**
	 * Return the statement for a lock mode, a wait mode and a number of keys. Its parameters are, for {@code BLOCK},
	 * the timeout in milliseconds ({@code bigint}), then the key ({@code bigint}) when there is one, or the
	 * {@code bigint[]} of keys when there are several; for {@code TRY}, the {@code bigint[]} of keys.
	 * @param mode exclusive or shared
	 * @param waitMode block or try
	 * @param keys how many distinct keys, at least one
	 * @param namespace the namespace, named in a leading comment
	 * @return the SQL
	 */
	static String acquire(LockMode mode, WaitMode waitMode, int keys, String namespace) {
		boolean shared = mode == LockMode.SHARED;
		String statement = switch (waitMode) {
			case BLOCK -> (keys == 1) ? (shared ? BLOCK_ONE_SHARED : BLOCK_ONE_EXCLUSIVE)
					: (shared ? BLOCK_SHARED : BLOCK_EXCLUSIVE);
			case TRY -> shared ? TRY_SHARED : TRY_EXCLUSIVE;
		};
		return "/* advisory-lock " + commentSafe(namespace) + " */ " + statement;
	}

	/**
	 * Return the namespace as text that cannot end or nest a comment: PostgreSQL's block comments nest, so both
	 * {@code /*} and its closing pair are split with a space; control characters (a line break could end a
	 * psql-style {@code --} comment in a log line) become spaces.
	 * @param namespace the namespace
	 * @return the text for the comment
	 */
	static String commentSafe(String namespace) {
		String text = namespace;
		if (namespace.length() > MAX_COMMENT_NAMESPACE) {
			// Never cut between the two halves of a surrogate pair: a lone half is not valid UTF-8 for PostgreSQL.
			int end = Character.isHighSurrogate(namespace.charAt(MAX_COMMENT_NAMESPACE - 1)) ? MAX_COMMENT_NAMESPACE - 1
					: MAX_COMMENT_NAMESPACE;
			text = namespace.substring(0, end) + "...";
		}
		StringBuilder safe = new StringBuilder(text.length() + 4);
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			safe.append(Character.isISOControl(c) ? ' ' : c);
			char next = (i + 1 < text.length()) ? text.charAt(i + 1) : ' ';
			if ((c == '/' && next == '*') || (c == '*' && next == '/')) {
				safe.append(' ');
			}
		}
		return safe.toString();
	}

	/**
	 * Return the statement that lists the sessions holding a conflicting lock on some keys (see {@code HOLDERS}).
	 * @return the SQL
	 */
	static String holders() {
		return HOLDERS;
	}

	/**
	 * Return the statement that lists every advisory lock of the current database (see {@code ALL_LOCKS}).
	 * @return the SQL
	 */
	static String allLocks() {
		return ALL_LOCKS;
	}

}
