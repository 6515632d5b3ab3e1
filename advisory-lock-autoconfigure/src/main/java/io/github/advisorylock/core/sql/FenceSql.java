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

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The text of a fenced write's statements, shared by the drivers: in one round trip, in
 * place of a transaction scope's lock statement, they take each key's fence, then check
 * that the enclosing invocation-scoped session still holds the key.
 *
 * <p>
 * A key's fence is its 64 bits in the two-{@code int4} advisory key space
 * ({@code objsubid = 2}), which no caller's {@code bigint} key uses; exclusive and
 * transaction-level, it makes a new holder's first fenced write wait for the old holder's
 * in flight. The check is a statement of its own so that it runs only once the fences are
 * granted: a session can die during a fence wait. It probes each session's marker
 * ({@link #MARK}), one lookup in the lock manager, where {@code pg_locks} would copy the
 * lock table (docs/decisions.md, "Fenced writes").
 *
 * @author advisory-lock authors
 */
public final class FenceSql {

	/**
	 * The first {@code int4} of a session's marker: a value of its own, so that
	 * {@code pg_locks} tells markers from fences (first {@code int4} the key's high
	 * half), but for the keys whose high half it is (one in 2^32).
	 */
	public static final int MARKER_SPACE = 0x6D61726B;

	/**
	 * Takes the session's marker in its transaction, so that a fenced write can tell the
	 * transaction lives, and names its database, which a writer must share. Taken at the
	 * first fenced write, as most sessions never fence; {@code false} when another
	 * session holds it. Its parameter is the marker's second {@code int4}.
	 */
	public static final String MARK = "SELECT pg_catalog.pg_try_advisory_xact_lock(" + MARKER_SPACE
			+ ", ?) AS marked, pg_catalog.current_database() AS database";

	/** Tries before a marker is given up: each fails only where another holds it. */
	public static final int MARK_ATTEMPTS = 8;

	/**
	 * Issues a session's fencing token in a transaction of its own, on a connection other
	 * than the session's: the transaction's xid, 64 bits with its epoch
	 * ({@code txid_current()}, which PostgreSQL 12 has too), assigned before the check
	 * that the session's marker is held, so that a successor, which can acquire only once
	 * the marker is free, is assigned a greater one. The commit, after which the token is
	 * handed out, must be flushed (and synchronously replicated), since an xid is
	 * assigned again only if its transaction's commit is lost; PostgreSQL flushes the
	 * commit of a transaction that wrote no WAL asynchronously, so the transaction writes
	 * a transactional logical message, the lightest WAL record any role may write, and
	 * raises {@code synchronous_commit} to {@code on} where it is lower. {@code NULL}
	 * when the marker is free, the session gone; the database names where it ran, which
	 * must be the marker's. Its parameter is the marker's second {@code int4}.
	 */
	public static final String TOKEN = """
			WITH issued AS MATERIALIZED (
			  SELECT pg_catalog.txid_current() AS token,
			         pg_catalog.pg_logical_emit_message(true, 'advisory-lock', 'fencing token') AS logged,
			         CASE WHEN pg_catalog.current_setting('synchronous_commit')
			                   OPERATOR(pg_catalog.=) ANY (ARRAY['off', 'local'])
			              THEN pg_catalog.set_config('synchronous_commit', 'on', true) END AS synchronous_commit)
			SELECT CASE WHEN pg_catalog.pg_try_advisory_xact_lock_shared(%d, ?) THEN NULL ELSE issued.token END AS token,
			       pg_catalog.current_database() AS database
			FROM issued"""
		.formatted(MARKER_SPACE);

	/**
	 * Takes the keys' fences in array order, in a subquery that runs only for a row
	 * {@link LockSql#LOCKABLE} lets through; bounds the transaction's idle time to the
	 * dead-man switch, so that a holder paused here holds up the next no longer; names
	 * the database. Parameters: the keys ({@code bigint[]}), the idle timeout
	 * ({@code text}).
	 */
	private static final String FENCE = """
			SELECT (SELECT pg_catalog.count(*) FROM pg_catalog.unnest(?::bigint[]) AS k
			        CROSS JOIN LATERAL pg_catalog.pg_advisory_xact_lock((k OPERATOR(pg_catalog.>>) 32)::integer,
			          ((k OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.>>) 32)::integer)) AS fenced,
			       pg_catalog.set_config('idle_in_transaction_session_timeout', ?, true) AS idle_timeout,
			       pg_catalog.current_database() AS database
			WHERE %s""".formatted(LockSql.LOCKABLE);

	/**
	 * The first key whose session's marker is free, the session gone; no row when all are
	 * held. Parameters: the keys ({@code bigint[]}), their sessions' markers
	 * ({@code int4[]}).
	 */
	private static final String CHECK = """
			SELECT f.k AS lost_key
			FROM ROWS FROM (pg_catalog.unnest(?::bigint[]), pg_catalog.unnest(?::integer[])) AS f(k, marker)
			WHERE pg_catalog.pg_try_advisory_xact_lock_shared(%d, f.marker)
			LIMIT 1""".formatted(MARKER_SPACE);

	/**
	 * Both statements, with JDBC's {@code ?} parameters in this order: the keys, the idle
	 * timeout (see {@link #idleTimeout}), the keys again, the markers.
	 */
	public static final String FENCE_AND_CHECK = FENCE + ";\n" + CHECK;

	private FenceSql() {
	}

	/**
	 * Return both statements with their values, numbers and a duration only, written in,
	 * for R2DBC PostgreSQL, which sends several statements together only without
	 * parameters.
	 * @param keys the fenced keys, sorted
	 * @param markers the marker of each key's session, in the same order
	 * @param idleTimeout the transaction's idle bound
	 * @param namespace the namespace, named in a leading comment
	 */
	public static String fenceAndCheckWithValues(List<Long> keys, List<SessionMarker> markers, Duration idleTimeout,
			String namespace) {
		String keyArray = LockSql.arrayLiteral(keys);
		String markerArray = LockSql.arrayLiteral(markers.stream().map(SessionMarker::marker).toList());
		return LockSql.withValues(LockSql.JDBC.commented(namespace, FENCE_AND_CHECK), keyArray,
				"'" + idleTimeout(idleTimeout) + "'", keyArray, markerArray);
	}

	/**
	 * Return the failure of a session that found no free marker.
	 */
	public static IllegalStateException noFreeMarker() {
		return new IllegalStateException("No free marker for an advisory lock session in " + MARK_ATTEMPTS
				+ " tries: are locks with the first int4 " + MARKER_SPACE + " taken by hand?");
	}

	/** Return the idle timeout parameter, at least 1ms, as 0 would turn the bound off. */
	public static String idleTimeout(Duration idleTimeout) {
		return Math.max(1, idleTimeout.toMillis()) + "ms";
	}

	/**
	 * A lock session's marker: a transaction-level lock, so held exactly as long as the
	 * session's keys, and not by a later transaction of the same backend (behind
	 * PgBouncer or a pool), with no pid or transaction number that could repeat.
	 *
	 * @param marker the second {@code int4} of the marker, the first being
	 * {@link #MARKER_SPACE}
	 * @param database the database the session, its keys and its marker are in
	 */
	public record SessionMarker(int marker, String database) {

	}

	/**
	 * What a fencing token's statement found.
	 *
	 * @param token the token, or {@code null} when the session's marker was free
	 * @param database the database the statement ran in
	 */
	public record IssuedToken(@Nullable Long token, String database) {

	}

	/**
	 * What a fenced write found.
	 *
	 * @param lockable whether a lock is allowed here; when not, no fence was taken
	 * @param lostKey the first key its enclosing session no longer holds, or {@code null}
	 */
	public record FenceResult(boolean lockable, @Nullable Long lostKey) {

	}

}
