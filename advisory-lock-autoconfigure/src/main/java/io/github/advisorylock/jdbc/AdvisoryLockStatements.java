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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.advisorylock.LockMode;

/**
 * The SQL that acquires advisory locks: one statement, so one round trip, for an acquisition that finds its locks free
 * (the common case, kept as light as a hand-written lock with the same isolation check), and a second one only for a
 * {@code BLOCK} that must wait.
 *
 * <p>The first statement, {@code TRY_ONE} or {@code TRY_MANY}, checks the isolation level and tries the keys in array
 * order (the caller sorts them), stopping at the first one held. Its {@code WHERE} clause is the isolation check: a
 * transaction above READ COMMITTED gets no row, and takes no lock, because the select list is computed only for the
 * rows the {@code WHERE} clause lets through. Otherwise its one row says which key was found held, if any. In
 * {@code TRY_MANY}, the {@code LIMIT 1} stops at the first held key; an {@code ORDER BY} or {@code DISTINCT} there
 * would make PostgreSQL try every key before choosing one: keep it out. The try never waits: a key held by another
 * transaction, or requested by a transaction already waiting for it, is reported held, so the try does not jump the
 * queue of waiters.
 *
 * <p>A {@code BLOCK} that found a key held then runs {@code WAIT} for that key and the ones after it, on the same
 * connection, in the same transaction (its isolation cannot change once the first statement ran). {@code WAIT} takes
 * the locks in array order, and before each key sets {@code lock_timeout} for this transaction to what is left until one
 * deadline, because PostgreSQL applies {@code lock_timeout} to each lock wait on its own: without the deadline, n keys
 * could wait n times the timeout. Then it restores the previous {@code lock_timeout}. The previous value and the
 * deadline are read in a {@code MATERIALIZED} CTE: a plain subquery would be folded into the outer query and read the
 * new value. Its {@code CASE} runs its branches in order, which sequences the work inside a single {@code SELECT}. A
 * wait that runs out of time fails with SQLSTATE {@code 55P03} and aborts the transaction, which also discards the
 * {@code lock_timeout} it set.
 *
 * <p>Why two statements rather than one that always carries the timeout: PostgreSQL prepares the executor state of
 * every expression of a statement on each execution, whether a branch runs or not, so the timeout's set, restore and
 * deadline cost every acquisition, more than a tenth of a short transaction on a local server (see
 * {@code docs/benchmarks.md}), while only an acquisition that waits needs them. That one is waiting for another
 * transaction anyway, which takes far longer than the extra round trip.
 *
 * <p>Each statement opens with a comment naming its namespace ({@code /* advisory-lock setup_request *}{@code /}),
 * so that {@code pg_stat_activity.query} tells an operator what a waiting session waits for. Key values never appear
 * in it. The text therefore differs per namespace, and pgjdbc prepares each distinct text on the server once it has
 * run {@code prepareThreshold} times on a connection: at most one prepared statement per namespace, mode and statement
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

	/** One key: whether it was acquired. */
	private static final String TRY_ONE = "SELECT %2$s(?) AS acquired WHERE %1$s";

	/** Several keys, in array order: the first one held, or {@code NULL} when every one was acquired. */
	private static final String TRY_MANY = """
			SELECT (SELECT k FROM unnest(?::bigint[]) AS k WHERE NOT %2$s(k) LIMIT 1) AS busy_key
			WHERE %1$s""";

	private static final String WAIT = """
			WITH previous AS MATERIALIZED (
			  SELECT current_setting('lock_timeout') AS lock_timeout,
			         clock_timestamp() + ? * interval '1 millisecond' AS deadline)
			SELECT CASE
			         WHEN (SELECT count(*) FROM unnest(?::bigint[]) AS k
			               CROSS JOIN LATERAL %1$s(CASE WHEN set_config('lock_timeout', %2$s, true) IS NOT NULL THEN k END)
			              ) IS NULL THEN NULL
			         ELSE set_config('lock_timeout', previous.lock_timeout, true)
			       END AS lock_timeout
			FROM previous""";

	private static final String TRY_ONE_EXCLUSIVE = TRY_ONE.formatted(LOCKABLE, "pg_try_advisory_xact_lock");

	private static final String TRY_ONE_SHARED = TRY_ONE.formatted(LOCKABLE, "pg_try_advisory_xact_lock_shared");

	private static final String TRY_MANY_EXCLUSIVE = TRY_MANY.formatted(LOCKABLE, "pg_try_advisory_xact_lock");

	private static final String TRY_MANY_SHARED = TRY_MANY.formatted(LOCKABLE, "pg_try_advisory_xact_lock_shared");

	private static final String WAIT_EXCLUSIVE = WAIT.formatted("pg_advisory_xact_lock", REMAINING);

	private static final String WAIT_SHARED = WAIT.formatted("pg_advisory_xact_lock_shared", REMAINING);

	/**
	 * Opens the transaction of an invocation-scoped lock, before its try: READ COMMITTED whatever the database's
	 * default (never through {@code Connection.setTransactionIsolation}, which changes the session and, behind a
	 * pooler, another client's), READ ONLY so that it never takes an xid, and named for an operator, {@code LOCAL}
	 * so that the name ends with the transaction. Its result reads {@code transaction_timeout} ({@code NULL} before
	 * PostgreSQL 17), which would end the lock.
	 */
	private static final String BEGIN_INVOCATION = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY; "
			+ "SELECT set_config('application_name', ?, true), "
			+ "current_setting('transaction_timeout', true) AS transaction_timeout; ";

	/**
	 * Keeps an invocation-scoped lock's session: sets the dead-man switch, which PostgreSQL applies to the session's
	 * idle time, and, sent again, is the heartbeat that restarts it. A utility statement, so it takes no snapshot and
	 * no xid: it also replaces the unnamed portal of the statement before it, whose snapshot would otherwise stay
	 * registered and hold back vacuum for as long as the lock is held. Its value is a number, so it is written in.
	 */
	private static final String KEEP_ALIVE = "SET LOCAL idle_in_transaction_session_timeout = '%dms'";

	/** The isolation level, read only to explain a refusal. */
	private static final String ISOLATION = "SELECT current_setting('transaction_isolation')";

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

	/** How many namespaces' comments are kept; namespaces are meant to be a few fixed words. */
	private static final int MAX_CACHED_NAMESPACES = 256;

	/** By namespace, each statement with its comment. */
	private static final Map<String, Map<String, String>> COMMENTED = new ConcurrentHashMap<>();

	/** Bounds the comment, so that a long namespace cannot push the statement out of {@code pg_stat_activity}. */
	private static final int MAX_COMMENT_NAMESPACE = 100;

	private AdvisoryLockStatements() {
	}

	/**
	 * Return the first statement of every acquisition: the isolation check, then a try of each key in order. It
	 * returns no row when the isolation level is above READ COMMITTED; otherwise one row, whose column is, for one
	 * key, whether it was acquired ({@code boolean}) and, for several, the first key found held ({@code bigint}, or
	 * {@code NULL} when every one was acquired). Its parameter is the key ({@code bigint}) when there is one, or the
	 * {@code bigint[]} of keys.
	 * @param mode exclusive or shared
	 * @param keys how many distinct keys, at least one
	 * @param namespace the namespace, named in a leading comment
	 * @return the SQL
	 */
	static String tryLock(LockMode mode, int keys, String namespace) {
		boolean shared = mode == LockMode.SHARED;
		String statement = (keys == 1) ? (shared ? TRY_ONE_SHARED : TRY_ONE_EXCLUSIVE)
				: (shared ? TRY_MANY_SHARED : TRY_MANY_EXCLUSIVE);
		return commented(namespace, statement);
	}

	/**
	 * Return the statement that waits for keys a try found held, bounded by one timeout for all of them. Its
	 * parameters are the timeout in milliseconds ({@code bigint}) and the {@code bigint[]} of keys.
	 * @param mode exclusive or shared
	 * @param namespace the namespace, named in a leading comment
	 * @return the SQL
	 */
	static String waitLock(LockMode mode, String namespace) {
		return commented(namespace, (mode == LockMode.SHARED) ? WAIT_SHARED : WAIT_EXCLUSIVE);
	}

	/**
	 * Return the statements that open the transaction of an invocation-scoped lock, try its keys and set its dead-man
	 * switch, in one round trip: {@code SET TRANSACTION} (no result set), a row whose second column is
	 * {@code transaction_timeout}, the result of {@link #tryLock}, then {@link #keepAlive} (no result set). Parameters:
	 * {@code application_name} as text, then the try's parameter.
	 * @param mode exclusive or shared
	 * @param keys how many distinct keys, at least one
	 * @param namespace the namespace, named in a leading comment
	 * @param deadManMillis the session's idle time after which PostgreSQL ends it, and the lock with it
	 * @return the SQL
	 */
	static String beginInvocation(LockMode mode, int keys, String namespace, long deadManMillis) {
		return BEGIN_INVOCATION + tryLock(mode, keys, namespace) + "; " + KEEP_ALIVE.formatted(deadManMillis);
	}

	/**
	 * Return the heartbeat of an invocation-scoped lock (see {@code KEEP_ALIVE}), which an operator sees as the
	 * session's last query.
	 * @param namespace the namespace, named in a leading comment
	 * @param deadManMillis the session's idle time after which PostgreSQL ends it
	 * @return the SQL
	 */
	static String keepAlive(String namespace, long deadManMillis) {
		return commented(namespace, KEEP_ALIVE.formatted(deadManMillis));
	}

	/**
	 * Return the statement that reads the transaction's isolation level, to explain a refusal.
	 * @return the SQL
	 */
	static String isolation() {
		return ISOLATION;
	}

	private static String commented(String namespace, String statement) {
		// Each namespace's statements are built once: the comment checks every character of the namespace, and the
		// same string instance lets pgjdbc find its prepared statement without hashing the text again.
		Map<String, String> statements = COMMENTED.get(namespace);
		if (statements == null) {
			if (COMMENTED.size() >= MAX_CACHED_NAMESPACES) {
				return "/* advisory-lock " + commentSafe(namespace) + " */ " + statement;
			}
			statements = COMMENTED.computeIfAbsent(namespace, (key) -> new ConcurrentHashMap<>());
		}
		return statements.computeIfAbsent(statement,
				(key) -> "/* advisory-lock " + commentSafe(namespace) + " */ " + statement);
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
