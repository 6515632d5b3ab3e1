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

import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockSql;
import io.github.advisorylock.jdbc.LockSessionStatements.SessionMarker;
import org.jspecify.annotations.Nullable;

/**
 * The statements of a fenced write, with the code that binds their parameters and reads
 * their rows: a transaction-scoped lock for keys that an enclosing invocation-scoped lock
 * holds takes, in the transaction, each key's fence lock and checks that the enclosing
 * lock's own session still holds the key. They replace the lock statement of a
 * transaction scope, in one round trip.
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
 * The check probes each enclosing session's marker ({@link LockSessionStatements#mark}),
 * an exclusive lock its transaction took at its first fenced write: held, the session's
 * transaction lives, and so do its keys, since a transaction-level lock is released only
 * when its transaction ends. A shared try on it fails while it is held; one that succeeds
 * (the session is gone) takes it in the writer's transaction, which then rolls back. It
 * is one lookup in the lock manager, where reading {@code pg_locks} would copy the
 * server's lock table. The marker is in the session's database, so the writer must be in
 * the same one; a writer elsewhere is refused with the reason.
 *
 * @author advisory-lock authors
 */
final class FencedWriteStatements {

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
			LIMIT 1""".formatted(LockSessionStatements.MARKER_SPACE);

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
					keys.stream().map((key) -> key.session().marker()).toArray(Integer[]::new)));
			statement.execute();
			boolean lockable;
			try (ResultSet fenced = statement.getResultSet()) {
				lockable = fenced.next();
				if (lockable) {
					checkSameDatabase(fenced.getString("database"), keys, namespace);
				}
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

	// A marker is seen only in its own database: elsewhere every fenced write would
	// count as a loss.
	private static void checkSameDatabase(String database, List<FencedKey> keys, String namespace) {
		for (FencedKey key : keys) {
			if (!database.equals(key.session().database())) {
				throw new LockTransactionException(
						"A fenced write of advisory lock namespace '" + namespace + "' runs in database '" + database
								+ "', and the invocation-scoped lock it is fenced by is in '" + key.session().database()
								+ "': a fence works only with the lock and the writes in the same "
								+ "database. Give invocation-scoped locks a DataSource of that database");
			}
		}
	}

	/**
	 * A fenced key, with the marker of the enclosing lock's session that holds it.
	 *
	 * @param key the key
	 * @param session the enclosing lock's session marker
	 */
	record FencedKey(long key, SessionMarker session) {

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
