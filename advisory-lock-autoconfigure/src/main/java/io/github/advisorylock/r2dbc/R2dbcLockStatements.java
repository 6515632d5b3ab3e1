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
import java.util.Optional;

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
 * The waits of both scopes over R2DBC, and the binding of every lock statement's keys, as
 * {@code JdbcLockStatements} has them; the text is {@link LockSql}'s. A statement with
 * parameters runs parse, bind, execute and sync in one round trip, its portal closed at
 * the end, so no snapshot outlives a wait: no keep-alive follows one, unlike
 * {@code JdbcLockSessions.granted}. Every {@link Result} is read to its end, even when
 * its rows are of no interest: one left unread would keep the connection busy for the
 * next statement.
 *
 * @author advisory-lock authors
 */
final class R2dbcLockStatements {

	private R2dbcLockStatements() {
	}

	/**
	 * Run the statement that waits for keys a try found held, within one timeout for all.
	 * @return whether it ran, once every key was taken: not on a standby, where it took
	 * nothing; an error with SQLSTATE {@code 55P03} when the wait ran out of time
	 */
	static Mono<Boolean> waitLock(Connection connection, LockMode mode, List<Long> keys, Duration timeout,
			String namespace) {
		return Mono.defer(() -> {
			Statement statement = connection.createStatement(LockSql.R2DBC.waitSql(mode, namespace));
			statement.bind(0, LockSql.timeoutMillis(timeout));
			bindKeys(statement, 1, keys, true);
			return answersARow(statement);
		});
	}

	/**
	 * Run the statement that waits for one key without a try first, within the timeout.
	 * @return whether a lock was allowed, once taken: when not, nothing was set or taken;
	 * an error with SQLSTATE {@code 55P03} when the wait ran out of time
	 */
	static Mono<Boolean> waitOne(Connection connection, LockMode mode, long key, Duration timeout, String namespace) {
		return Mono.defer(() -> {
			Statement statement = connection.createStatement(LockSql.R2DBC.waitOneSql(mode, namespace));
			statement.bind(0, LockSql.waitOneTimeout(timeout));
			statement.bind(1, key);
			return answersARow(statement);
		});
	}

	/** Run a statement and tell whether it answered a row. */
	private static Mono<Boolean> answersARow(Statement statement) {
		return Flux.from(statement.execute()).concatMap((result) -> result.map((row, metadata) -> 1)).hasElements();
	}

	/**
	 * Run one slice of a limit's wait ({@link PermitSql#sliceSql}) in one round trip, its
	 * values written in: the driver sends several statements together only without
	 * parameters.
	 * @return the slot taken, or empty on a standby, where it took nothing; an error with
	 * SQLSTATE {@code 55P03} when the slice ran out of time
	 */
	static Mono<Optional<Long>> waitPermitSlice(Connection connection, List<Long> slots, boolean resumed,
			Duration slice, int waited, String namespace) {
		String sql = PermitSql.sliceWithValuesSql(slots, resumed, slice, waited, namespace);
		// The slot's row comes between the savepoint's result and its release's.
		return Mono.defer(() -> Flux.from(connection.createStatement(sql).execute())
			.concatMap((result) -> result.map((row, metadata) -> row.get(0, Long.class)))
			.collectList()
			.map((rows) -> rows.stream().findFirst()));
	}

	/** End a limit's wait whose last slice ran out of time. */
	static Mono<Void> endPermitWait(Connection connection) {
		return Mono.defer(() -> drain(connection.createStatement(PermitSql.WAIT_END)));
	}

	/**
	 * Take the fences of the keys and check their enclosing sessions, in one round trip
	 * ({@link FenceSql}), the values written in, as a slice's are.
	 */
	static Mono<FenceResult> fence(Connection connection, List<Long> keys, List<SessionMarker> markers,
			Duration idleTimeout, LockRequest request) {
		return Mono.defer(() -> {
			String sql = FenceSql.fenceAndCheckWithValues(keys, markers, idleTimeout, request.namespace());
			// The fence's row (none when a lock is not allowed) is told by its column.
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

	/** Read why a try was refused: one more round trip, on that failure path only. */
	static Mono<RefusalReason> readRefusalReason(Connection connection) {
		return Mono.defer(() -> Flux.from(connection.createStatement(LockSql.REFUSAL).execute())
			.concatMap((result) -> result
				.map((row, metadata) -> new RefusalReason(String.valueOf(row.get(0, String.class)),
						Boolean.TRUE.equals(row.get(1, Boolean.class)))))
			.next());
	}

	/** Run a statement, reading every result to its end. */
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
