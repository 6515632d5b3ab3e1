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

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.LockSql.Opened;
import io.github.advisorylock.core.sql.LockSql.TryResult;
import io.github.advisorylock.core.sql.PermitSql;
import io.github.advisorylock.core.sql.PermitSql.OpenedLimit;
import io.github.advisorylock.core.sql.PermitSql.PermitTry;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Row;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The statements of an invocation-scoped lock's own session over R2DBC: the batch that
 * opens the lock's transaction and tries its keys in a single round trip, and the
 * keep-alive that is its heartbeat. The twin of the JDBC path's
 * {@code JdbcLockSessionStatements}, with one difference the driver imposes: it refuses
 * parameters in a batch of several statements, so the batch is sent without any (the
 * simple query protocol, which prepares nothing, so it is safe behind any pooler), with
 * the keys and the session's name written in.
 *
 * @author advisory-lock authors
 */
final class R2dbcLockSessionStatements {

	/**
	 * Opens the transaction of an invocation-scoped lock, before its try: READ COMMITTED
	 * whatever the database's default, READ ONLY so that it never takes an xid, and named
	 * for an operator, {@code LOCAL} so that the name ends with the transaction. Its row
	 * reads {@code transaction_timeout} ({@code NULL} before PostgreSQL 17), which would
	 * end the lock.
	 */
	private static final String BEGIN_INVOCATION = "BEGIN ISOLATION LEVEL READ COMMITTED, READ ONLY; "
			+ "SELECT set_config('application_name', '%s', true), "
			+ "current_setting('transaction_timeout', true) AS transaction_timeout; ";

	private static final String TRANSACTION_TIMEOUT = "transaction_timeout";

	private static final String MARK = LockSql.numbered(FenceSql.MARK);

	private R2dbcLockSessionStatements() {
	}

	/**
	 * Open the transaction of an invocation-scoped lock, try its keys and set its
	 * dead-man switch, in one round trip.
	 * @param connection the lock's own connection
	 * @param mode exclusive or shared
	 * @param keys the distinct keys, sorted, at least one
	 * @param namespace the namespace, named in a leading comment
	 * @param applicationName the session's name for the transaction
	 * @param deadManMillis the session's idle time after which PostgreSQL ends it
	 * @return what the try found, and {@code transaction_timeout} as PostgreSQL shows it
	 */
	static Mono<Opened> beginInvocation(Connection connection, LockMode mode, List<Long> keys, String namespace,
			String applicationName, long deadManMillis) {
		return open(connection, applicationName, LockSql.tryWithKeysSql(mode, keys, namespace), deadManMillis,
				(row) -> (keys.size() == 1) ? row.get(0, Boolean.class) : row.get(0, Long.class),
				// For several keys, NULL is "every one taken".
				(row, value, transactionTimeout) -> new Opened(
						TryResult.read(row, (value != null) ? value : Boolean.TRUE, keys), transactionTimeout));
	}

	/**
	 * Open the transaction of an invocation-scoped limit, try its permits and set its
	 * dead-man switch, in one round trip, as {@link #beginInvocation} does with the try
	 * of a limit's permits in place of that of keys.
	 * @param connection the lock's own connection
	 * @param slots the limit's slots, slot 0 first
	 * @param namespace the namespace, named in a leading comment
	 * @param applicationName the session's name for the transaction
	 * @param deadManMillis the session's idle time after which PostgreSQL ends it
	 * @return what the try found, and {@code transaction_timeout} as PostgreSQL shows it
	 */
	static Mono<OpenedLimit> beginLimit(Connection connection, List<Long> slots, String namespace,
			String applicationName, long deadManMillis) {
		String[] values = slots.stream().map(String::valueOf).toArray(String[]::new);
		return open(connection, applicationName,
				LockSql.withValues(PermitSql.JDBC.trySql(slots.size(), namespace), values), deadManMillis,
				(row) -> row.get(0, Integer.class),
				(row, value, transactionTimeout) -> new OpenedLimit(PermitTry.read(row, (Integer) value, slots),
						transactionTimeout));
	}

	/**
	 * Roll the session's transaction back, which releases its locks.
	 * @param connection the session's connection
	 * @return completes when the server answered
	 */
	static Mono<Void> rollback(Connection connection) {
		return Mono.defer(() -> R2dbcLockStatements.drain(connection.createStatement("ROLLBACK")));
	}

	/**
	 * Send the opening batch of a lock session: the transaction, its settings' row, the
	 * try, the keep-alive. Each statement gives a result of its own: the settings' row is
	 * told from the try's by its column.
	 * @param tryRow reads the try's one column
	 * @param opened makes what was found of the try's row and {@code transaction_timeout}
	 */
	private static <T> Mono<T> open(Connection connection, String applicationName, String trySql, long deadManMillis,
			Function<Row, @Nullable Object> tryRow, Opening<T> opened) {
		return Mono.defer(() -> {
			String sql = BEGIN_INVOCATION.formatted(literal(applicationName)) + trySql + "; "
					+ LockSql.KEEP_ALIVE.formatted(deadManMillis);
			List<Optional<Object>> tried = new ArrayList<>(1);
			String[] transactionTimeout = new String[1];
			return Flux.from(connection.createStatement(sql).execute())
				.concatMap((result) -> result.map((row, metadata) -> {
					if (metadata.contains(TRANSACTION_TIMEOUT)) {
						transactionTimeout[0] = row.get(TRANSACTION_TIMEOUT, String.class);
					}
					else {
						tried.add(Optional.ofNullable(tryRow.apply(row)));
					}
					return 1;
				}))
				.then(Mono.fromSupplier(() -> opened.opened(!tried.isEmpty(),
						tried.isEmpty() ? null : tried.get(0).orElse(null), transactionTimeout[0])));
		});
	}

	/**
	 * Return a session name as a string literal's content: printable ASCII (PostgreSQL
	 * shows other characters as {@code ?} anyway), quotes doubled.
	 */
	private static String literal(String text) {
		StringBuilder literal = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\'') {
				literal.append("''");
			}
			else {
				literal.append((c >= 0x20 && c < 0x7f) ? c : '?');
			}
		}
		return literal.toString();
	}

	/**
	 * Return the heartbeat of an invocation-scoped lock, which an operator sees as the
	 * session's last query.
	 * @param namespace the namespace, named in a leading comment
	 * @param deadManMillis the session's idle time after which PostgreSQL ends it
	 * @return the SQL
	 */
	static String keepAliveSql(String namespace, long deadManMillis) {
		return LockSql.R2DBC.commented(namespace, LockSql.KEEP_ALIVE.formatted(deadManMillis));
	}

	/**
	 * Send a lock session's keep-alive statement.
	 * @param connection the lock's connection
	 * @param sql from {@link #keepAliveSql}
	 * @return completes when the server confirmed it
	 */
	static Mono<Void> keepAlive(Connection connection, String sql) {
		return Mono.defer(() -> R2dbcLockStatements.drain(connection.createStatement(sql)));
	}

	/**
	 * Take a marker for a lock session, on its own connection ({@link FenceSql#MARK}): a
	 * random one, tried again while another session holds it.
	 * @param connection the lock's connection
	 * @return the marker, held by the connection's transaction until it ends
	 */
	static Mono<SessionMarker> mark(Connection connection) {
		return Mono.defer(() -> {
			int marker = ThreadLocalRandom.current().nextInt();
			return Flux.from(connection.createStatement(MARK).bind(0, marker).execute())
				.concatMap((result) -> result
					.map((row, metadata) -> Boolean.TRUE.equals(row.get("marked", Boolean.class))
							? Optional.of(new SessionMarker(marker, String.valueOf(row.get("database", String.class))))
							: Optional.<SessionMarker>empty()))
				.next()
				.flatMap(Mono::justOrEmpty);
		}).repeat(FenceSql.MARK_ATTEMPTS - 1).next().switchIfEmpty(Mono.error(FenceSql::noFreeMarker));
	}

	/**
	 * Makes what a session's opening batch found.
	 *
	 * @param <T> what it found
	 */
	@FunctionalInterface
	private interface Opening<T> {

		/**
		 * Make what was found.
		 * @param row whether the try returned its row (none when its check refused the
		 * lock)
		 * @param value the row's one column, or {@code null}
		 * @param transactionTimeout {@code transaction_timeout} as PostgreSQL shows it
		 * @return what was found
		 */
		T opened(boolean row, @Nullable Object value, @Nullable String transactionTimeout);

	}

}
