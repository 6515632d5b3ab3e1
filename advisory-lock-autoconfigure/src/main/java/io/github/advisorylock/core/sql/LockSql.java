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

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.advisorylock.LockMode;
import org.jspecify.annotations.Nullable;

/**
 * The text of the statements that acquire advisory locks, shared by the drivers, which
 * bind the parameters in the order documented here and read the rows; {@link #JDBC}
 * writes parameters as {@code ?}, {@link #R2DBC} as {@code $1}, {@code $2}. A limit's
 * statements are {@link PermitSql}'s. Internal: used by the driver adapters, not API.
 *
 * <p>
 * One statement, so one round trip, for an acquisition that finds its locks free (the
 * common case, kept as light as a hand-written lock with the same isolation check), and a
 * second one only for a {@code BLOCK} that must wait.
 *
 * <p>
 * The first statement, {@code TRY_ONE} or {@code TRY_MANY}, checks the isolation level
 * and tries the keys in array order (the caller sorts them), stopping at the first one
 * held. Its {@code WHERE} clause is the check that a lock here can protect anything: a
 * transaction above READ COMMITTED, or a server in recovery (a standby, whose advisory
 * locks exclude nobody on the primary), gets no row, and takes no lock, because the
 * select list is computed only for the rows the {@code WHERE} clause lets through.
 * Otherwise its one row says which key was found held, if any. In {@code TRY_MANY}, the
 * {@code LIMIT 1} stops at the first held key; an {@code ORDER BY} or {@code DISTINCT}
 * there would make PostgreSQL try every key before choosing one: keep it out. The try
 * never waits: a key held by another transaction, or requested by a transaction already
 * waiting for it, is reported held, so the try does not jump the queue of waiters. Its
 * one parameter is the key ({@code bigint}) for one key, the array of keys
 * ({@code bigint[]}) for several.
 *
 * <p>
 * A {@code BLOCK} that found a key held then runs {@code WAIT} for that key and the ones
 * after it, on the same connection, in the same transaction (its isolation cannot change
 * once the first statement ran). {@code WAIT} takes the locks in array order, and before
 * each key sets {@code lock_timeout} for this transaction to what is left until one
 * deadline, because PostgreSQL applies {@code lock_timeout} to each lock wait on its own:
 * without the deadline, n keys could wait n times the timeout. Then it restores the
 * previous {@code lock_timeout}. The previous value and the deadline are read in a
 * {@code MATERIALIZED} CTE: a plain subquery would be folded into the outer query and
 * read the new value. Its {@code CASE} runs its branches in order, which sequences the
 * work inside a single {@code SELECT}. A wait that runs out of time fails with SQLSTATE
 * {@code 55P03} and aborts the transaction, which also discards the {@code lock_timeout}
 * it set. Its parameters are the timeout in milliseconds ({@code bigint}), then the array
 * of keys.
 *
 * <p>
 * Two statements rather than one that always carries the timeout: PostgreSQL prepares
 * every expression of a statement on each execution, so the timeout's set, restore and
 * deadline would cost every acquisition more than a tenth of a short transaction
 * ({@code docs/benchmarks.md}); only a waiter needs them, and it waits far longer.
 *
 * <p>
 * Each statement opens with a comment naming its namespace
 * ({@code /* advisory-lock setup_request *}{@code /}), so that
 * {@code pg_stat_activity.query} tells an operator what a waiting session waits for. Key
 * values never appear in it. The text therefore differs per namespace, and a driver that
 * prepares statements on the server (pgjdbc once a text has run {@code prepareThreshold}
 * times on a connection, r2dbc-postgresql at once) keeps at most one prepared statement
 * per namespace, mode and statement on each connection, within its statement cache.
 *
 * @author advisory-lock authors
 */
public final class LockSql {

	/**
	 * Whether a lock here protects anything: the isolation level allows it (PostgreSQL
	 * runs READ UNCOMMITTED as READ COMMITTED), and the server is not in recovery. A
	 * function call on local state, so it adds no measurable cost. Public for the fenced
	 * write, which checks it too.
	 */
	public static final String LOCKABLE = "current_setting('transaction_isolation') IN ('read committed', "
			+ "'read uncommitted') AND NOT pg_is_in_recovery()";

	/**
	 * What is left until the deadline, as a {@code lock_timeout}; at least 1ms, as 0
	 * would mean "no timeout".
	 */
	private static final String REMAINING = "greatest(1, ceil(extract(epoch FROM previous.deadline - "
			+ "clock_timestamp()) * 1000))::bigint || 'ms'";

	/** One key: whether it was acquired. */
	private static final String TRY_ONE = "SELECT %2$s(?) AS acquired WHERE %1$s";

	/**
	 * Several keys, in array order: the first one held, or {@code NULL} when every one
	 * was acquired.
	 */
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
	 * Keeps an invocation-scoped lock's session: sets the dead-man switch, which
	 * PostgreSQL applies to the session's idle time, and, sent again, is the heartbeat
	 * that restarts it. A utility statement, so it takes no snapshot and no xid: it also
	 * replaces the unnamed portal of the statement before it, whose snapshot would
	 * otherwise stay registered and hold back vacuum for as long as the lock is held. Its
	 * value is a number, so it is written in.
	 */
	public static final String KEEP_ALIVE = "SET LOCAL idle_in_transaction_session_timeout = '%dms'";

	/** The isolation level and recovery state, read only to explain a refusal. */
	public static final String REFUSAL = "SELECT current_setting('transaction_isolation'), pg_is_in_recovery()";

	/**
	 * The statements with JDBC's {@code ?} parameters. (Declared after the texts it is
	 * made of: static fields are set in order.)
	 */
	public static final LockSql JDBC = new LockSql(false);

	/** The statements with R2DBC PostgreSQL's numbered {@code $1} parameters. */
	public static final LockSql R2DBC = new LockSql(true);

	/** How many namespaces' comments are kept: namespaces are a few fixed words. */
	private static final int MAX_CACHED_NAMESPACES = 256;

	/** By namespace, each statement with its comment. */
	private final Map<String, Map<String, String>> commented = new ConcurrentHashMap<>();

	private final String tryOneExclusive;

	private final String tryOneShared;

	private final String tryManyExclusive;

	private final String tryManyShared;

	private final String waitExclusive;

	private final String waitShared;

	private final boolean numbered;

	private LockSql(boolean numbered) {
		this.numbered = numbered;
		this.tryOneExclusive = placeholders(TRY_ONE_EXCLUSIVE, numbered);
		this.tryOneShared = placeholders(TRY_ONE_SHARED, numbered);
		this.tryManyExclusive = placeholders(TRY_MANY_EXCLUSIVE, numbered);
		this.tryManyShared = placeholders(TRY_MANY_SHARED, numbered);
		this.waitExclusive = placeholders(WAIT_EXCLUSIVE, numbered);
		this.waitShared = placeholders(WAIT_SHARED, numbered);
	}

	/**
	 * Write the {@code ?} parameters of a statement as {@code $1}, {@code $2} when asked.
	 * The texts here hold no {@code ?} but their parameters; a namespace, which may, is
	 * added later, in the comment.
	 */
	static String placeholders(String statement, boolean numbered) {
		return numbered ? numbered(statement) : statement;
	}

	/**
	 * Write the {@code ?} parameters of a statement as R2DBC PostgreSQL's {@code $1},
	 * {@code $2}.
	 * @param statement a statement whose only {@code ?} are its parameters
	 * @return the statement with numbered parameters
	 */
	public static String numbered(String statement) {
		StringBuilder sql = new StringBuilder(statement.length() + 4);
		int parameter = 0;
		for (int i = 0; i < statement.length(); i++) {
			char c = statement.charAt(i);
			if (c == '?') {
				sql.append('$').append(++parameter);
			}
			else {
				sql.append(c);
			}
		}
		return sql.toString();
	}

	/**
	 * Return the statement that tries the keys, with its namespace comment.
	 * @param mode exclusive or shared
	 * @param keys how many keys it tries: one binds the key, several the array
	 * @param namespace the namespace, named in a leading comment
	 * @return the statement
	 */
	public String trySql(LockMode mode, int keys, String namespace) {
		boolean shared = mode == LockMode.SHARED;
		String statement = (keys == 1) ? (shared ? this.tryOneShared : this.tryOneExclusive)
				: (shared ? this.tryManyShared : this.tryManyExclusive);
		return commented(namespace, statement);
	}

	/**
	 * Return the statement that waits for keys a try found held, with its namespace
	 * comment.
	 * @param mode exclusive or shared
	 * @param namespace the namespace, named in a leading comment
	 * @return the statement
	 */
	public String waitSql(LockMode mode, String namespace) {
		return commented(namespace, (mode == LockMode.SHARED) ? this.waitShared : this.waitExclusive);
	}

	/**
	 * Write values in place of a commented statement's {@code ?} parameters, in order,
	 * for a driver that sends several statements together only without parameters. Only
	 * the {@code ?} after the comment are parameters: a namespace in the comment may hold
	 * one.
	 * @param statement a statement with its namespace comment and JDBC's {@code ?}
	 * parameters
	 * @param values the SQL literal of each parameter, in order; numbers and the
	 * library's own texts only, never a caller's value
	 * @return the statement with its values written in
	 */
	public static String withValues(String statement, String... values) {
		int end = statement.indexOf("*/") + 2;
		StringBuilder sql = new StringBuilder(statement.length() + 64).append(statement, 0, end);
		int value = 0;
		for (int i = end; i < statement.length(); i++) {
			char c = statement.charAt(i);
			if (c == '?') {
				sql.append(values[value++]);
			}
			else {
				sql.append(c);
			}
		}
		return sql.toString();
	}

	/**
	 * Return the SQL literal of an array of numbers, for {@link #withValues}.
	 * @param keys the numbers
	 * @return the literal, such as {@code '{1,2}'}
	 */
	public static String arrayLiteral(List<? extends Number> keys) {
		return keys.stream().map(String::valueOf).collect(Collectors.joining(",", "'{", "}'"));
	}

	/**
	 * Return the statement that tries the keys with the keys written in, for a batch of
	 * statements sent without parameters (the simple query protocol, in which R2DBC
	 * PostgreSQL refuses parameters). Keys are numbers, so writing them in is safe.
	 * @param mode exclusive or shared
	 * @param keys the distinct keys, sorted, at least one
	 * @param namespace the namespace, named in a leading comment
	 * @return the statement
	 */
	public static String tryWithKeysSql(LockMode mode, List<Long> keys, String namespace) {
		return withValues(JDBC.trySql(mode, keys.size(), namespace),
				(keys.size() == 1) ? "(" + keys.get(0) + ")::bigint" : arrayLiteral(keys));
	}

	/**
	 * Return a statement with the comment naming its namespace.
	 * @param namespace the namespace
	 * @param statement the statement
	 * @return the statement, commented
	 */
	public String commented(String namespace, String statement) {
		// Each namespace's statements are built once: the comment checks every character
		// of the namespace, and the same string instance lets pgjdbc find its prepared
		// statement without hashing the text again.
		Map<String, String> statements = this.commented.get(namespace);
		if (statements == null) {
			if (this.commented.size() >= MAX_CACHED_NAMESPACES) {
				return comment(namespace) + statement;
			}
			statements = this.commented.computeIfAbsent(namespace, (key) -> new ConcurrentHashMap<>());
		}
		return statements.computeIfAbsent(statement, (key) -> comment(namespace) + statement);
	}

	private static String comment(String namespace) {
		return "/* advisory-lock " + commentSafe(namespace) + " */ ";
	}

	/**
	 * Return the namespace as text that cannot end or nest a comment: PostgreSQL's block
	 * comments nest, so both {@code /*} and its closing pair are split with a space;
	 * control characters (a line break could end a psql-style {@code --} comment in a log
	 * line) become spaces.
	 * @param namespace the namespace
	 * @return the text for the comment
	 */
	public static String commentSafe(String namespace) {
		// No cut: LockRequest bounds a namespace to MAX_NAMESPACE_LENGTH, so it cannot
		// push the statement out of pg_stat_activity's query text.
		StringBuilder safe = new StringBuilder(namespace.length() + 4);
		for (int i = 0; i < namespace.length(); i++) {
			char c = namespace.charAt(i);
			safe.append(Character.isISOControl(c) ? ' ' : c);
			char next = (i + 1 < namespace.length()) ? namespace.charAt(i + 1) : ' ';
			if ((c == '/' && next == '*') || (c == '*' && next == '/')) {
				safe.append(' ');
			}
		}
		return safe.toString();
	}

	/**
	 * What a try found.
	 *
	 * @param lockable whether a lock is allowed here (isolation, recovery); when not,
	 * nothing was taken
	 * @param busyKey the first key found held, or {@code null} when every one was
	 * acquired
	 */
	public record TryResult(boolean lockable, @Nullable Long busyKey) {

		public static final TryResult REFUSED = new TryResult(false, null);

		public static final TryResult ACQUIRED = new TryResult(true, null);

		/**
		 * Read the row of a try, as either driver reads it: none when the check refused
		 * the lock; for one key, whether it was taken; for several, the first one found
		 * held, or anything but a {@code Long} ({@code NULL}) when every one was taken.
		 * @param row whether the statement returned its row
		 * @param value the row's one column, or {@code null}
		 * @param keys the keys tried, in order
		 * @return what the try found
		 */
		public static TryResult read(boolean row, @Nullable Object value, List<Long> keys) {
			if (!row) {
				return REFUSED;
			}
			if (keys.size() == 1) {
				return Boolean.TRUE.equals(value) ? ACQUIRED : new TryResult(true, keys.get(0));
			}
			return (value instanceof Long busyKey) ? new TryResult(true, busyKey) : ACQUIRED;
		}

	}

	/**
	 * Why a try was refused.
	 *
	 * @param isolation the transaction's isolation level, as PostgreSQL names it
	 * @param inRecovery whether the server is in recovery (a standby)
	 */
	public record RefusalReason(String isolation, boolean inRecovery) {

	}

	/**
	 * What a session's opening statements found.
	 *
	 * @param tryResult what the try found
	 * @param transactionTimeout {@code transaction_timeout} as PostgreSQL shows it, or
	 * {@code null} before 17
	 */
	public record Opened(TryResult tryResult, @Nullable String transactionTimeout) {

	}

}
