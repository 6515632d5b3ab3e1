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

package io.github.advisorylock.r2dbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.plan.FencedKeys;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.FenceResult;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.LockSql.RefusalReason;
import io.github.advisorylock.core.sql.PermitSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Statement;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The statements both scopes wait with over R2DBC, and the code that binds the keys of
 * every lock statement. Their text, shared with the JDBC driver, and why each is written
 * as it is, are {@link LockSql}'s. A transaction's try is
 * {@link R2dbcTransactionLockStatements}'.
 *
 * <p>
 * Each statement has parameters, so r2dbc-postgresql runs it with the extended protocol:
 * parse, bind, execute and sync in one round trip, the portal closed at the end. Every
 * {@link Result} is read to its end, also when its rows are of no interest: a result left
 * unread would keep the connection busy for the next statement.
 *
 * @author advisory-lock authors
 */
final class R2dbcLockStatements {

	private R2dbcLockStatements() {
	}

	/**
	 * Run the statement that waits for keys a try found held, bounded by one timeout for
	 * all of them.
	 * @param connection the transaction's connection
	 * @param mode exclusive or shared
	 * @param keys the keys to wait for, in order
	 * @param timeout the bound on the whole wait
	 * @param namespace the namespace, named in a leading comment
	 * @return completes when every key was taken; an error with SQLSTATE {@code 55P03}
	 * when the wait ran out of time
	 */
	static Mono<Void> waitLock(Connection connection, LockMode mode, List<Long> keys, Duration timeout,
			String namespace) {
		return Mono.defer(() -> {
			Statement statement = connection.createStatement(LockSql.R2DBC.waitSql(mode, namespace));
			statement.bind(0, Math.max(1, timeout.toMillis()));
			bindKeys(statement, 1, keys, true);
			return drain(statement);
		});
	}

	/**
	 * Run one slice of a limit's wait ({@link PermitSql#sliceSql}) in one round trip, its
	 * values written in: the driver sends several statements together only without
	 * parameters.
	 * @param connection the transaction's connection
	 * @param slots the limit's slots, slot 0 first
	 * @param resumed whether the savepoint of a slice that ran out of time is set
	 * @param slice how long to wait for the chosen slot
	 * @param waited the index of the slot to wait for, from 1
	 * @param namespace the namespace, named in a leading comment
	 * @return the slot taken; an error with SQLSTATE {@code 55P03} when the slice ran out
	 * of time
	 */
	static Mono<Long> waitPermitSlice(Connection connection, List<Long> slots, boolean resumed, Duration slice,
			int waited, String namespace) {
		String sql = PermitSql.sliceWithValuesSql(slots, resumed, slice, waited, namespace);
		// Every result read to its end, as the other statements are: the slot's row comes
		// between the savepoint's result and its release's.
		return Mono.defer(() -> Flux.from(connection.createStatement(sql).execute())
			.concatMap((result) -> result.map((row, metadata) -> row.get(0, Long.class)))
			.collectList()
			.map((rows) -> rows.get(0)));
	}

	/**
	 * End a limit's wait whose last slice ran out of time.
	 * @param connection the transaction's connection
	 * @return completes when done
	 */
	static Mono<Void> endPermitWait(Connection connection) {
		return Mono.defer(() -> drain(connection.createStatement(PermitSql.WAIT_END)));
	}

	/**
	 * Make the transaction a fenced write: take the fences of the keys and check their
	 * enclosing sessions, in one round trip ({@link FenceSql}). The two statements go
	 * together only without parameters, so the values are written in.
	 * @param connection the transaction's connection
	 * @param keys the fenced keys, sorted
	 * @param markers the marker of each key's session, in the same order
	 * @param idleTimeout the transaction's idle bound
	 * @param request the call, whose namespace is named in a leading comment
	 * @return what the fenced write found
	 */
	static Mono<FenceResult> fence(Connection connection, List<Long> keys, List<SessionMarker> markers,
			Duration idleTimeout, LockRequest request) {
		return Mono.defer(() -> {
			String sql = FenceSql.fenceAndCheckWithValues(keys, markers, idleTimeout, request.namespace());
			// Each statement gives a result of its own: the fence's row, none when a lock
			// is not allowed here, is told from the check's by its column.
			boolean[] lockable = new boolean[1];
			List<Long> lost = new ArrayList<>(1);
			return Flux.from(connection.createStatement(sql).execute())
				.concatMap((result) -> result.map((row, metadata) -> {
					if (metadata.contains("database")) {
						lockable[0] = true;
						FencedKeys.checkSameDatabase(String.valueOf(row.get("database", String.class)), markers,
								request);
					}
					else {
						lost.add(row.get("lost_key", Long.class));
					}
					return 1;
				}))
				.then(Mono.fromSupplier(() -> new FenceResult(lockable[0], lost.isEmpty() ? null : lost.get(0))));
		});
	}

	/**
	 * Read why a try was refused: the isolation level, and whether the server is in
	 * recovery. One more round trip, on that failure path only.
	 * @param connection the transaction's connection
	 * @return the refusal
	 */
	static Mono<RefusalReason> readRefusalReason(Connection connection) {
		return Mono.defer(() -> Flux.from(connection.createStatement(LockSql.REFUSAL).execute())
			.concatMap((result) -> result
				.map((row, metadata) -> new RefusalReason(String.valueOf(row.get(0, String.class)),
						Boolean.TRUE.equals(row.get(1, Boolean.class)))))
			.next());
	}

	/**
	 * Run a statement, reading every result to its end.
	 * @param statement the statement
	 * @return completes when it ran
	 */
	static Mono<Void> drain(Statement statement) {
		return Flux.from(statement.execute()).concatMap((result) -> result.map((row, metadata) -> 1)).then();
	}

	/**
	 * Bind the keys: the key itself when a statement takes one, else the {@code bigint[]}
	 * of them (r2dbc-postgresql sends a {@code Long[]} as {@code int8[]}).
	 */
	static void bindKeys(Statement statement, int index, List<Long> keys, boolean array) {
		if (array) {
			statement.bind(index, keys.toArray(Long[]::new));
		}
		else {
			statement.bind(index, keys.get(0));
		}
	}

}
