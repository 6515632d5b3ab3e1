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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.LockSql;
import io.github.advisorylock.jdbc.LockSessionStatements.SessionIdentity;
import org.jspecify.annotations.Nullable;

/**
 * The statements of a fenced write, with the code that binds their parameters and reads
 * their rows: a transaction-scoped lock for keys that an enclosing invocation-scoped lock
 * of the same thread holds takes, in the transaction, each key's fence lock and checks
 * that the enclosing lock's own session still holds the key. They replace the lock
 * statement of a transaction scope, in one round trip.
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
 * that; the second checks the enclosing sessions in {@code pg_locks}. The check is a
 * statement of its own so that it runs only once every fence is granted: a check
 * evaluated before a fence wait could pass, the session die during the wait, the next
 * holder write, and this transaction write after it.
 *
 * <p>
 * A session is identified by its backend's pid and its transaction's virtual id, both
 * shown by {@code pg_locks} on the row of each lock it holds, to any role, and by its
 * backend's start where {@code pg_stat_activity} shows it to the writer's role. A virtual
 * id is the backend's slot and a number that each transaction of the backend takes next,
 * so a later transaction of the same backend never has the lock transaction's: a server
 * connection that a pool or PgBouncer gave to another client after the lock's transaction
 * ended, holding the same key, does not pass, though its pid and {@code backend_start}
 * are the lock session's. A new backend with a recycled pid (the operating system's pid
 * space wrapped) has a new {@code backend_start}; that column alone would not do, since
 * {@code pg_stat_activity} hides it from other roles without {@code pg_read_all_stats}
 * (an invocation-scoped lock on a data source of its own may log in as another role),
 * where the check goes without it. Then only a new backend that got the same pid, took
 * the same slot, and reached the same transaction number (a new backend numbers its
 * transactions from the start again, PostgreSQL 18 does) while holding the same key could
 * pass.
 *
 * <p>
 * The check does not ask for the session's database: the pid and virtual id name one
 * session of the server, and its key is in its own database, while the fence is taken in
 * the transaction's.
 *
 * @author advisory-lock authors
 */
final class FencedWriteStatements {

	/**
	 * Takes the fences of the keys, in array order, and bounds the transaction's idle
	 * time; no row when a lock is not allowed here. The fences are taken in a subquery
	 * that runs only for the row the {@code WHERE} clause lets through. Its parameters
	 * are the keys ({@code bigint[]}) and the idle timeout ({@code text}).
	 */
	private static final String FENCE = """
			SELECT (SELECT count(*) FROM unnest(?::bigint[]) AS k
			        CROSS JOIN LATERAL pg_advisory_xact_lock((k >> 32)::int4, ((k << 32) >> 32)::int4)) AS fenced,
			       set_config('idle_in_transaction_session_timeout', ?, true) AS idle_timeout
			WHERE %s""".formatted(LockSql.LOCKABLE);

	/**
	 * The first key whose enclosing session no longer holds it, granted, in the mode it
	 * took it in; no row when every one does. The backend's start is compared only where
	 * the writer's role sees it. Its parameters are the keys ({@code bigint[]}), and each
	 * one's session pid ({@code int4[]}), virtual transaction id ({@code text[]}),
	 * {@code pg_locks} mode ({@code text[]}) and backend start ({@code timestamptz[]}).
	 */
	private static final String CHECK = """
			SELECT f.k AS lost_key
			FROM unnest(?::bigint[], ?::int4[], ?::text[], ?::text[], ?::timestamptz[])
			     AS f(k, pid, vxid, mode, backend_start)
			WHERE NOT EXISTS (
			        SELECT FROM pg_locks l
			        WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
			          AND l.pid = f.pid AND l.virtualtransaction = f.vxid AND l.mode = f.mode
			          AND ((l.classid::bigint << 32) | l.objid::bigint) = f.k)
			   OR EXISTS (
			        SELECT FROM pg_stat_get_activity(f.pid) a
			        WHERE a.backend_start IS DISTINCT FROM f.backend_start AND a.backend_start IS NOT NULL)
			LIMIT 1""";

	private static final String FENCE_AND_CHECK = FENCE + ";\n" + CHECK;

	private FencedWriteStatements() {
	}

	/**
	 * Take the fences of the keys and check their enclosing sessions, in one round trip.
	 * @param connection the transaction's connection
	 * @param keys the fenced keys, each with its enclosing session, sorted by key
	 * @param idleTimeout the transaction's idle bound
	 * @param namespace the namespace, named in a leading comment
	 * @return what the fenced write found
	 * @throws SQLException if a statement fails
	 */
	static FenceResult fence(Connection connection, List<FencedKey> keys, Duration idleTimeout, String namespace)
			throws SQLException {
		Long[] values = keys.stream().map(FencedKey::key).toArray(Long[]::new);
		try (PreparedStatement statement = connection
			.prepareStatement(LockSql.JDBC.commented(namespace, FENCE_AND_CHECK))) {
			statement.setArray(1, connection.createArrayOf("bigint", values));
			statement.setString(2, Math.max(1, idleTimeout.toMillis()) + "ms");
			statement.setArray(3, connection.createArrayOf("bigint", values));
			statement.setArray(4, connection.createArrayOf("int4",
					keys.stream().map((key) -> key.session().pid()).toArray(Integer[]::new)));
			statement.setArray(5, connection.createArrayOf("text",
					keys.stream().map((key) -> key.session().virtualTransaction()).toArray(String[]::new)));
			statement.setArray(6,
					connection.createArrayOf("text", keys.stream().map(FencedKey::pgLocksMode).toArray(String[]::new)));
			statement.setArray(7, connection.createArrayOf("text",
					keys.stream().map((key) -> key.session().backendStart()).toArray(String[]::new)));
			statement.execute();
			boolean lockable;
			try (ResultSet fenced = statement.getResultSet()) {
				lockable = fenced.next();
			}
			if (!statement.getMoreResults()) {
				throw new IllegalStateException("The check of a fenced advisory lock write gave no row set: is "
						+ "something between the application and PostgreSQL rewriting statements?");
			}
			try (ResultSet check = statement.getResultSet()) {
				return new FenceResult(lockable, check.next() ? check.getLong(1) : null);
			}
		}
	}

	/**
	 * A fenced key, with the session of the enclosing lock that holds it.
	 *
	 * @param key the key
	 * @param mode the mode the enclosing lock holds it in
	 * @param session the enclosing lock's session
	 */
	record FencedKey(long key, LockMode mode, SessionIdentity session) {

		String pgLocksMode() {
			return (this.mode == LockMode.SHARED) ? "ShareLock" : "ExclusiveLock";
		}

	}

	/**
	 * What a fenced write found.
	 *
	 * @param lockable whether a lock is allowed here (isolation, recovery); when not, no
	 * fence was taken
	 * @param lostKey the first key whose enclosing session no longer holds it, or
	 * {@code null} when every one does
	 */
	record FenceResult(boolean lockable, @Nullable Long lostKey) {

	}

}
