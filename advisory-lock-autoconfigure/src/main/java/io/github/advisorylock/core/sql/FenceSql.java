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
 * The text of a fenced write's statements, shared by the drivers, which bind them: a
 * transaction-scoped lock for keys that an enclosing invocation-scoped lock holds takes,
 * in the transaction, each key's fence lock and checks that the enclosing lock's own
 * session still holds the key. They replace the lock statement of a transaction scope, in
 * one round trip. Internal: used by the driver adapters, not API.
 *
 * <p>
 * The fence of a key is the same 64 bits in PostgreSQL's other advisory key space, the
 * two-{@code int4} form ({@code objsubid = 2} in {@code pg_locks}), so it collides with
 * no key a caller can name (those are {@code bigint}s, {@code objsubid = 1}). It is
 * exclusive and transaction-level: the fenced transactions of one key run one at a time,
 * and a new holder's first one waits for the old holder's in flight to end.
 *
 * <p>
 * Two statements, sent together: the first takes the fences (after the same check of
 * isolation and recovery as a lock statement) and sets the transaction's
 * {@code idle_in_transaction_session_timeout} to the session's dead-man switch, so that a
 * holder paused inside a fenced transaction keeps the next holder waiting no longer than
 * that; the second checks the enclosing sessions. The check is a statement of its own so
 * that it runs only once every fence is granted: a check evaluated before a fence wait
 * could pass, the session die during the wait, the next holder write, and this
 * transaction write after it.
 *
 * <p>
 * The check probes each enclosing session's marker ({@link #MARK}), an exclusive lock its
 * transaction took at its first fenced write: held, the session's transaction lives, and
 * so do its keys, since a transaction-level lock is released only when its transaction
 * ends. A shared try on it fails while it is held; one that succeeds (the session is
 * gone) takes it in the writer's transaction, which then rolls back. It is one lookup in
 * the lock manager, where reading {@code pg_locks} would copy the server's lock table.
 * The marker is in the session's database, so the writer must be in the same one; a
 * writer elsewhere is refused with the reason ({@code FencedKeys.checkSameDatabase}).
 *
 * @author advisory-lock authors
 */
public final class FenceSql {

	/**
	 * The first {@code int4} of a lock session's marker, in PostgreSQL's two-{@code int4}
	 * advisory key space: a value of its own, so that markers are told from fences (whose
	 * first {@code int4} is the high half of a key) in {@code pg_locks}, but for the
	 * fences of keys whose high half is that value (one key in 2^32).
	 */
	public static final int MARKER_SPACE = 0x6D61726B;

	/**
	 * Takes a marker for the lock's session, a random second {@code int4} in
	 * {@link #MARKER_SPACE}, exclusively in the lock's transaction, so that a fenced
	 * write can tell the transaction still lives; and names the database it is in. Taken
	 * once, at a session's first fenced write, not when it opens: most sessions never
	 * fence. {@code false} when another session holds that marker (1 in 2^32 per session
	 * alive), and another is tried, up to {@link #MARK_ATTEMPTS} times. Its parameter is
	 * the marker ({@code int4}).
	 */
	public static final String MARK = "SELECT pg_try_advisory_xact_lock(" + MARKER_SPACE
			+ ", ?) AS marked, current_database() AS database";

	/** Tries before a marker is given up on: each fails only where another is held. */
	public static final int MARK_ATTEMPTS = 8;

	/**
	 * Takes the fences of the keys, in array order, bounds the transaction's idle time,
	 * and names the database; no row when a lock is not allowed here. The fences are
	 * taken in a subquery that runs only for the row the {@code WHERE} clause lets
	 * through. Its parameters are the keys ({@code bigint[]}) and the idle timeout
	 * ({@code text}).
	 */
	private static final String FENCE = """
			SELECT (SELECT count(*) FROM unnest(?::bigint[]) AS k
			        CROSS JOIN LATERAL pg_advisory_xact_lock((k >> 32)::int4, ((k << 32) >> 32)::int4)) AS fenced,
			       set_config('idle_in_transaction_session_timeout', ?, true) AS idle_timeout,
			       current_database() AS database
			WHERE %s""".formatted(LockSql.LOCKABLE);

	/**
	 * The first key whose enclosing session no longer holds it: its marker is free. No
	 * row when every marker is held. Its parameters are the keys ({@code bigint[]}) and
	 * their sessions' markers ({@code int4[]}).
	 */
	private static final String CHECK = """
			SELECT f.k AS lost_key
			FROM unnest(?::bigint[], ?::int4[]) AS f(k, marker)
			WHERE pg_try_advisory_xact_lock_shared(%d, f.marker)
			LIMIT 1""".formatted(MARKER_SPACE);

	/**
	 * Both statements, with JDBC's {@code ?} parameters in this order: the keys, the idle
	 * timeout (see {@link #idleTimeout}), the keys again, the markers.
	 */
	public static final String FENCE_AND_CHECK = FENCE + ";\n" + CHECK;

	private FenceSql() {
	}

	/**
	 * Return both statements with the values written in, for a driver that sends two
	 * statements together only without parameters (R2DBC PostgreSQL, on the simple query
	 * protocol). The values are numbers and a duration, so writing them in is safe.
	 * @param keys the fenced keys, sorted
	 * @param markers the marker of each key's session, in the same order
	 * @param idleTimeout the transaction's idle bound
	 * @param namespace the namespace, named in a leading comment
	 * @return the statements
	 */
	public static String fenceAndCheckWithValues(List<Long> keys, List<SessionMarker> markers, Duration idleTimeout,
			String namespace) {
		String keyArray = LockSql.arrayLiteral(keys);
		String markerArray = LockSql.arrayLiteral(markers.stream().map(SessionMarker::marker).toList());
		return LockSql.withValues(LockSql.JDBC.commented(namespace, FENCE_AND_CHECK), keyArray,
				"'" + idleTimeout(idleTimeout) + "'", keyArray, markerArray);
	}

	/**
	 * Return the failure of a session that found no free marker in {@link #MARK_ATTEMPTS}
	 * tries.
	 * @return the exception to throw
	 */
	public static IllegalStateException noFreeMarker() {
		return new IllegalStateException("No free marker for an advisory lock session in " + MARK_ATTEMPTS
				+ " tries: are locks with the first int4 " + MARKER_SPACE + " taken by hand?");
	}

	/**
	 * Return the idle timeout parameter: milliseconds, at least one (zero would turn the
	 * bound off).
	 * @param idleTimeout the transaction's idle bound
	 * @return the setting's text
	 */
	public static String idleTimeout(Duration idleTimeout) {
		return Math.max(1, idleTimeout.toMillis()) + "ms";
	}

	/**
	 * A lock session's marker: an exclusive advisory lock of its transaction, which a
	 * fenced write probes, so held exactly as long as the session's keys are (a
	 * transaction-level lock is given back only when its transaction ends). A later
	 * transaction on the same backend, as behind PgBouncer or a pool, does not hold it;
	 * no pid or transaction number is compared, so none can repeat.
	 *
	 * @param marker the second {@code int4} of the marker, the first being
	 * {@link #MARKER_SPACE}
	 * @param database the database the session, its keys and its marker are in
	 */
	public record SessionMarker(int marker, String database) {

	}

	/**
	 * What a fenced write found.
	 *
	 * @param lockable whether a lock is allowed here (isolation, recovery); when not, no
	 * fence was taken
	 * @param lostKey the first key whose enclosing session no longer holds it, or
	 * {@code null} when every one does
	 */
	public record FenceResult(boolean lockable, @Nullable Long lostKey) {

	}

}
