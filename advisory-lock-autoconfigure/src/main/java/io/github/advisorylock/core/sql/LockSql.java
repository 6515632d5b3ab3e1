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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.advisorylock.LockMode;
import org.jspecify.annotations.Nullable;

/**
 * The text of the statements that acquire advisory locks, shared by the drivers:
 * {@link #JDBC} writes parameters as {@code ?}, {@link #R2DBC} as {@code $1}; each
 * statement says its parameters. A limit's are {@link PermitSql}'s.
 *
 * <p>
 * A try takes free keys in one round trip; only a {@code BLOCK} that finds one held sends
 * {@code WAIT}, and a {@code BLOCK} of one key recently found held sends {@code WAIT_ONE}
 * instead of both (docs/decisions.md, "Cost and round trips"). A try never waits: a key
 * another transaction awaits counts as held, so a try never jumps the queue.
 *
 * <p>
 * Each statement opens with a comment naming its namespace, never a key
 * ({@code /* advisory-lock setup_request *}{@code /}), for {@code pg_stat_activity}; a
 * driver thus prepares a statement per namespace, mode and text (docs/observability.md).
 *
 * @author advisory-lock authors
 */
public final class LockSql {

	/**
	 * The isolation levels a lock protects anything in, as PostgreSQL names them: READ
	 * COMMITTED, and READ UNCOMMITTED, which PostgreSQL runs as it.
	 */
	private static final List<String> LOCKABLE_ISOLATION = List.of("read committed", "read uncommitted");

	/**
	 * Not a standby: what a statement that follows a try in its transaction checks again
	 * (the isolation cannot change there, the server can). A balancer that routes each
	 * statement on its own (pgpool-II's {@code statement_level_load_balance}) may send
	 * the wait to a standby after the try ran on the primary: there it takes nothing, and
	 * answers no row (docs/pgpool.md).
	 */
	public static final String NOT_IN_RECOVERY = "NOT pg_catalog.pg_is_in_recovery()";

	/**
	 * Whether a lock here protects anything: READ COMMITTED (PostgreSQL runs READ
	 * UNCOMMITTED as it), not a standby, whose locks exclude nobody on the primary. In a
	 * try's {@code WHERE} it refuses before any lock: the select list runs only for a row
	 * it lets through.
	 */
	public static final String LOCKABLE = "pg_catalog.current_setting('transaction_isolation') "
			+ "OPERATOR(pg_catalog.=) ANY (ARRAY["
			+ LOCKABLE_ISOLATION.stream().map((isolation) -> "'" + isolation + "'").collect(Collectors.joining(", "))
			+ "]) AND " + NOT_IN_RECOVERY;

	/** What is left until the deadline; at least 1ms, as 0 means no timeout. */
	private static final String REMAINING = "greatest(1, pg_catalog.ceil(extract(epoch FROM previous.deadline "
			+ "OPERATOR(pg_catalog.-) pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000))::bigint "
			+ "OPERATOR(pg_catalog.||) 'ms'";

	/** One key ({@code bigint}): whether it was acquired. */
	private static final String TRY_ONE = "SELECT pg_catalog.%2$s(?) AS acquired WHERE %1$s";

	/**
	 * Several keys ({@code bigint[]}, sorted by the caller), in array order: the first
	 * one held, or {@code NULL} when every one was acquired. {@code LIMIT 1} stops at the
	 * first held key; an {@code ORDER BY} or {@code DISTINCT} there would make PostgreSQL
	 * try every key: keep it out.
	 */
	private static final String TRY_MANY = """
			SELECT (SELECT k FROM pg_catalog.unnest(?::bigint[]) AS k WHERE NOT pg_catalog.%2$s(k) LIMIT 1) AS busy_key
			WHERE %1$s""";

	/**
	 * Waits for the keys in array order within one deadline, after a try in the same
	 * transaction (so only {@link #NOT_IN_RECOVERY} is checked: no row, and nothing
	 * taken, on a standby). PostgreSQL times each lock wait on its own, so
	 * {@code lock_timeout} is set to what is left before each key, then restored; the old
	 * value is read in a {@code MATERIALIZED} CTE, as a subquery would be folded in and
	 * read the new one. A {@code CASE} runs its branches in order, which puts each key's
	 * {@code set_config} before its lock and the restore after the last, in one
	 * {@code SELECT}. Running out fails with {@code 55P03} and aborts the transaction,
	 * discarding the {@code lock_timeout} set. Parameters: the timeout in ms
	 * ({@code bigint}), the keys ({@code bigint[]}).
	 */
	private static final String WAIT = """
			WITH previous AS MATERIALIZED (
			  SELECT pg_catalog.current_setting('lock_timeout') AS lock_timeout,
			         pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+)
			           (? OPERATOR(pg_catalog.*) interval '1 millisecond') AS deadline)
			SELECT CASE
			         WHEN (SELECT pg_catalog.count(*) FROM pg_catalog.unnest(?::bigint[]) AS k
			               CROSS JOIN LATERAL pg_catalog.%1$s(
			                 CASE WHEN pg_catalog.set_config('lock_timeout', %2$s, true) IS NOT NULL THEN k END)
			              ) IS NULL THEN NULL
			         ELSE pg_catalog.set_config('lock_timeout', previous.lock_timeout, true)
			       END AS lock_timeout
			FROM previous
			WHERE %3$s""";

	/**
	 * The transaction-local setting in which {@link #WAIT_ONE} keeps the transaction's
	 * {@code lock_timeout} while it waits with its own: a name of the library's, which
	 * PostgreSQL creates on first use in a session, and whose value ends with the
	 * transaction.
	 */
	public static final String KEPT_LOCK_TIMEOUT = "advisory_lock.lock_timeout";

	/**
	 * Waits for one key in one statement, without a try first: for a key recently found
	 * held ({@code core.ContendedKeys}). The try's check, then, in a {@code CASE}, whose
	 * conditions run in order, each false but the last: the transaction's
	 * {@code lock_timeout} kept in {@link #KEPT_LOCK_TIMEOUT}, {@code lock_timeout} set
	 * to the timeout, the lock, and the kept value set back. No row when the check
	 * refused, and nothing set or taken; {@code true} once taken. Running out fails with
	 * {@code 55P03} and aborts the transaction, discarding what it set. Parameters: the
	 * timeout ({@code text}, such as {@code 3000ms}), the key ({@code bigint}).
	 */
	private static final String WAIT_ONE = """
			SELECT CASE
			         WHEN pg_catalog.set_config('%3$s', pg_catalog.current_setting('lock_timeout'), true) IS NULL THEN NULL
			         WHEN pg_catalog.set_config('lock_timeout', ?, true) IS NULL THEN NULL
			         WHEN pg_catalog.%2$s(?) IS NULL THEN NULL
			         ELSE pg_catalog.set_config('lock_timeout', pg_catalog.current_setting('%3$s'), true) IS NOT NULL
			       END AS acquired
			WHERE %1$s""";

	private static final String TRY_ONE_EXCLUSIVE = TRY_ONE.formatted(LOCKABLE, "pg_try_advisory_xact_lock");

	private static final String TRY_ONE_SHARED = TRY_ONE.formatted(LOCKABLE, "pg_try_advisory_xact_lock_shared");

	private static final String TRY_MANY_EXCLUSIVE = TRY_MANY.formatted(LOCKABLE, "pg_try_advisory_xact_lock");

	private static final String TRY_MANY_SHARED = TRY_MANY.formatted(LOCKABLE, "pg_try_advisory_xact_lock_shared");

	private static final String WAIT_EXCLUSIVE = WAIT.formatted("pg_advisory_xact_lock", REMAINING, NOT_IN_RECOVERY);

	private static final String WAIT_SHARED = WAIT.formatted("pg_advisory_xact_lock_shared", REMAINING,
			NOT_IN_RECOVERY);

	private static final String WAIT_ONE_EXCLUSIVE = WAIT_ONE.formatted(LOCKABLE, "pg_advisory_xact_lock",
			KEPT_LOCK_TIMEOUT);

	private static final String WAIT_ONE_SHARED = WAIT_ONE.formatted(LOCKABLE, "pg_advisory_xact_lock_shared",
			KEPT_LOCK_TIMEOUT);

	/**
	 * Sets an invocation-scoped lock session's dead-man switch, on its idle time; sent
	 * again, it is the heartbeat. A utility statement, so that it takes no snapshot and
	 * ends the previous statement's portal, whose snapshot would hold back vacuum
	 * (docs/decisions.md, "Invocation scope"). Its value is a number, written in.
	 */
	public static final String KEEP_ALIVE = "SET LOCAL idle_in_transaction_session_timeout = '%dms'";

	/**
	 * The startup check's try of a random key ({@code core.ExclusionProof}): the try the
	 * locks use, after a leading comment as theirs is, so that a pooler that routes by it
	 * routes this one as it routes them; and whether the server that answered is a
	 * standby, where every lock is refused. Parameter: the key ({@code bigint}).
	 */
	public static final String EXCLUSION_CHECK = "/* advisory-lock startup check */ "
			+ "SELECT pg_catalog.pg_try_advisory_xact_lock(?) AS acquired, pg_catalog.pg_is_in_recovery() AS in_recovery";

	/** The isolation level and recovery state, read only to explain a refusal. */
	public static final String REFUSAL = "SELECT pg_catalog.current_setting('transaction_isolation'), "
			+ "pg_catalog.pg_is_in_recovery()";

	/**
	 * The statements with JDBC's {@code ?} parameters; declared after their texts, as
	 * static fields are set in order.
	 */
	public static final LockSql JDBC = new LockSql(false);

	/** The statements with R2DBC PostgreSQL's numbered {@code $1} parameters. */
	public static final LockSql R2DBC = new LockSql(true);

	/** How many namespaces' statements are kept: namespaces are a few fixed words. */
	private static final int MAX_CACHED_NAMESPACES = 256;

	private final Map<String, Map<String, String>> commented = new ConcurrentHashMap<>();

	private final String tryOneExclusive;

	private final String tryOneShared;

	private final String tryManyExclusive;

	private final String tryManyShared;

	private final String waitExclusive;

	private final String waitShared;

	private final String waitOneExclusive;

	private final String waitOneShared;

	private final boolean numbered;

	private LockSql(boolean numbered) {
		this.numbered = numbered;
		this.tryOneExclusive = placeholders(TRY_ONE_EXCLUSIVE, numbered);
		this.tryOneShared = placeholders(TRY_ONE_SHARED, numbered);
		this.tryManyExclusive = placeholders(TRY_MANY_EXCLUSIVE, numbered);
		this.tryManyShared = placeholders(TRY_MANY_SHARED, numbered);
		this.waitExclusive = placeholders(WAIT_EXCLUSIVE, numbered);
		this.waitShared = placeholders(WAIT_SHARED, numbered);
		this.waitOneExclusive = placeholders(WAIT_ONE_EXCLUSIVE, numbered);
		this.waitOneShared = placeholders(WAIT_ONE_SHARED, numbered);
	}

	/**
	 * Write the {@code ?} parameters as {@code $1}, {@code $2} when asked: before the
	 * comment is added, as a namespace may hold a {@code ?}.
	 */
	static String placeholders(String statement, boolean numbered) {
		return numbered ? numbered(statement) : statement;
	}

	/**
	 * Write a statement's {@code ?} parameters as R2DBC PostgreSQL's {@code $1},
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
	 * @param keys how many keys it tries: one binds the key, several the array
	 * @param namespace the namespace, named in a leading comment
	 */
	public String trySql(LockMode mode, int keys, String namespace) {
		boolean shared = mode == LockMode.SHARED;
		String statement = (keys == 1) ? (shared ? this.tryOneShared : this.tryOneExclusive)
				: (shared ? this.tryManyShared : this.tryManyExclusive);
		return commented(namespace, statement);
	}

	/** Return the statement that waits for keys a try found held, with its comment. */
	public String waitSql(LockMode mode, String namespace) {
		return commented(namespace, (mode == LockMode.SHARED) ? this.waitShared : this.waitExclusive);
	}

	/**
	 * Return the statement that waits for one key without a try first, with its comment.
	 */
	public String waitOneSql(LockMode mode, String namespace) {
		return commented(namespace, (mode == LockMode.SHARED) ? this.waitOneShared : this.waitOneExclusive);
	}

	/**
	 * Return a wait's timeout in milliseconds, for its statement: at least 1, as 0 means
	 * no timeout to PostgreSQL.
	 * @param timeout the timeout
	 * @return the milliseconds
	 */
	public static long timeoutMillis(Duration timeout) {
		return Math.max(1, timeout.toMillis());
	}

	/**
	 * Return {@link #WAIT_ONE}'s timeout parameter, a {@code lock_timeout} value.
	 * @param timeout the timeout
	 * @return the value, such as {@code 3000ms}
	 */
	public static String waitOneTimeout(Duration timeout) {
		return timeoutMillis(timeout) + "ms";
	}

	/**
	 * Write values for a commented statement's {@code ?} parameters, for a driver that
	 * sends several statements together only without parameters. Only the {@code ?} after
	 * the comment are parameters: a namespace may hold one.
	 * @param statement a commented statement with JDBC's {@code ?} parameters
	 * @param values each parameter's SQL literal, in order; numbers and the library's own
	 * texts only, never a caller's value
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
	 * Return the statement that tries the keys with the keys written in, for a batch sent
	 * without parameters, which R2DBC PostgreSQL requires; keys are numbers, so it is
	 * safe.
	 * @param keys the distinct keys, sorted, at least one
	 * @param namespace the namespace, named in a leading comment
	 */
	public static String tryWithKeysSql(LockMode mode, List<Long> keys, String namespace) {
		return withValues(JDBC.trySql(mode, keys.size(), namespace),
				(keys.size() == 1) ? "(" + keys.get(0) + ")::bigint" : arrayLiteral(keys));
	}

	/** Return a statement with the comment naming its namespace. */
	public String commented(String namespace, String statement) {
		// Built once per namespace: the comment checks every character, and the same
		// string instance lets pgjdbc find its prepared statement without hashing it.
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
	 * comments nest, so {@code /*} and its closing pair are split with a space; control
	 * characters (a line break could end a {@code --} comment in a log line) become
	 * spaces.
	 * @return the text for the comment
	 */
	public static String commentSafe(String namespace) {
		// No cut needed: LockRequest bounds a namespace's length, so the statement stays
		// within pg_stat_activity's query text.
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
	 * @param lockable whether a lock is allowed here; when not, nothing was taken
	 * @param busyKey the first key found held, or {@code null} when all were acquired
	 */
	public record TryResult(boolean lockable, @Nullable Long busyKey) {

		public static final TryResult REFUSED = new TryResult(false, null);

		public static final TryResult ACQUIRED = new TryResult(true, null);

		/**
		 * Read a try's row for either driver: none when the check refused; for one key,
		 * whether it was taken; for several, the first held, or {@code NULL} when none.
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

		/**
		 * Return whether the try was refused because its server is in recovery: this read
		 * says so, or the isolation it read is one the check accepts. The isolation is
		 * the transaction's wherever it runs; the recovery state is the server's, and a
		 * balancer may have sent this read to another server than the try (pgpool-II
		 * sends a {@code SET} to every server, and what follows it in the transaction to
		 * the primary).
		 * @return {@code true} if the server that ran the try is a standby
		 */
		public boolean onStandby() {
			return this.inRecovery || LOCKABLE_ISOLATION.contains(this.isolation);
		}

	}

	/**
	 * What a session's opening statements found.
	 *
	 * @param tryResult what the try found
	 * @param transactionTimeout {@code transaction_timeout}, or {@code null} before 17
	 */
	public record Opened(TryResult tryResult, @Nullable String transactionTimeout) {

	}

}
