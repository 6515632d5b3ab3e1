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
import io.github.advisorylock.core.sql.FenceSql.IssuedToken;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.LockSql.Opened;
import io.github.advisorylock.core.sql.LockSql.TryResult;
import io.github.advisorylock.core.sql.PermitSql;
import io.github.advisorylock.core.sql.PermitSql.OpenedLimit;
import io.github.advisorylock.core.sql.PermitSql.PermitTry;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Row;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The statements of an invocation-scoped lock's own session over R2DBC, as
 * {@code JdbcLockSessionStatements}, except that the opening batch has no parameters, its
 * keys and session name written in: the driver refuses parameters in a batch of several
 * statements. (The simple query protocol prepares nothing: safe behind poolers.)
 *
 * @author advisory-lock authors
 */
final class R2dbcLockSessionStatements {

	/** As JDBC's opening, with {@code BEGIN}: nothing else begins the transaction. */
	private static final String BEGIN_INVOCATION = "BEGIN ISOLATION LEVEL READ COMMITTED, READ ONLY; "
			+ "SELECT pg_catalog.set_config('application_name', '%s', true), "
			+ "pg_catalog.current_setting('transaction_timeout', true) AS transaction_timeout; ";

	private static final String TRANSACTION_TIMEOUT = "transaction_timeout";

	private static final String MARK = LockSql.numbered(FenceSql.MARK);

	private static final String TOKEN = LockSql.numbered(FenceSql.TOKEN);

	private R2dbcLockSessionStatements() {
	}

	/**
	 * Open the transaction of an invocation-scoped lock, try its keys and set its
	 * dead-man switch, in one round trip.
	 */
	static Mono<Opened> beginInvocation(Connection connection, LockMode mode, List<Long> keys, String namespace,
			String applicationName, long deadManMillis) {
		return open(connection, applicationName, LockSql.tryWithKeysSql(mode, keys, namespace), deadManMillis,
				(row) -> (keys.size() == 1) ? row.get(0, Boolean.class) : row.get(0, Long.class),
				// For several keys, NULL is "every one taken".
				(row, value, transactionTimeout) -> new Opened(
						TryResult.read(row, (value != null) ? value : Boolean.TRUE, keys), transactionTimeout));
	}

	/** As {@link #beginInvocation}, trying a limit's permits in place of keys. */
	static Mono<OpenedLimit> beginLimit(Connection connection, List<Long> slots, String namespace,
			String applicationName, long deadManMillis) {
		String[] values = slots.stream().map(String::valueOf).toArray(String[]::new);
		return open(connection, applicationName,
				LockSql.withValues(PermitSql.JDBC.trySql(slots.size(), namespace), values), deadManMillis,
				(row) -> row.get(0, Integer.class),
				(row, value, transactionTimeout) -> new OpenedLimit(PermitTry.read(row, (Integer) value, slots),
						transactionTimeout));
	}

	/** Roll the session's transaction back, which releases its locks. */
	static Mono<Void> rollback(Connection connection) {
		return Mono.defer(() -> R2dbcLockStatements.drain(connection.createStatement("ROLLBACK")));
	}

	/**
	 * Send the opening batch: the transaction, its settings' row, the try, the
	 * keep-alive. Each gives a result of its own; the settings' is told by its column.
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

	/** Return a lock's heartbeat, as {@code JdbcLockSessionStatements} does. */
	static String keepAliveSql(String namespace, long deadManMillis) {
		return LockSql.R2DBC.commented(namespace, LockSql.KEEP_ALIVE.formatted(deadManMillis));
	}

	/** Send a lock session's keep-alive, from {@link #keepAliveSql}. */
	static Mono<Void> keepAlive(Connection connection, String sql) {
		return Mono.defer(() -> R2dbcLockStatements.drain(connection.createStatement(sql)));
	}

	/** Take a lock session's marker ({@link FenceSql#MARK}), held until it ends. */
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
	 * Issue a session's fencing token ({@link FenceSql#TOKEN}) on a connection of its own
	 * from the driver, committed before it is given, then closed off the delivering
	 * thread. The rows are collected to the statement's end: in auto-commit mode the
	 * commit follows the row, so the first row alone would come before it.
	 * @return what the statement found
	 */
	static Mono<IssuedToken> fencingToken(ConnectionFactory driver, String namespace, int marker) {
		String sql = LockSql.R2DBC.commented(namespace, TOKEN);
		return Mono.usingWhen(Mono.<Connection>from(driver.create()), (connection) -> {
			Mono<Void> commit = connection.isAutoCommit() ? Mono.empty() : Mono.from(connection.commitTransaction());
			return Flux.from(connection.createStatement(sql).bind(0, marker).execute())
				.concatMap((result) -> result.map((row, metadata) -> new IssuedToken(row.get("token", Long.class),
						String.valueOf(row.get("database", String.class)))))
				.collectList()
				.flatMap((rows) -> commit.then(Mono.justOrEmpty(rows.isEmpty() ? null : rows.get(0))));
		}, R2dbcDriverConnections::close);
	}

	/** Makes what a session's opening batch found. */
	@FunctionalInterface
	private interface Opening<T> {

		/**
		 * Make what was found.
		 * @param row whether the try returned its row (none when its check refused)
		 */
		T opened(boolean row, @Nullable Object value, @Nullable String transactionTimeout);

	}

}
