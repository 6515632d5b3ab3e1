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

import org.jspecify.annotations.Nullable;

/**
 * The text of the statements of a concurrency limit, shared by the drivers as
 * {@link LockSql}'s are, with the same namespace comment and the same check that a lock
 * here protects anything: a free permit is taken in one statement that takes exactly one
 * slot, and a waiter waits in slices, each in a savepoint, for one chosen slot (see
 * {@code core.PermitSlots} for why slices). Internal: used by the driver adapters, not
 * API.
 *
 * @author advisory-lock authors
 */
public final class PermitSql {

	/**
	 * One slice of a limit's wait: the tries of every slot, then a wait for the chosen
	 * one within the slice. {@code %s} is the {@code CASE} chain of tries, ended by
	 * {@code SLICE_WAIT_BRANCH}.
	 */
	private static final String SLICE = """
			WITH previous AS MATERIALIZED (
			  SELECT current_setting('lock_timeout') AS lock_timeout, ?::bigint AS slice, ?::integer AS chosen,
			         ?::bigint[] AS s)
			SELECT %s AS permit
			FROM previous""";

	/** The waiting branch of {@code SLICE}, and the chain's {@code END}. */
	private static final String SLICE_WAIT_BRANCH = """
			 WHEN (SELECT count(*) FROM pg_advisory_xact_lock(CASE WHEN set_config('lock_timeout', \
			previous.slice || 'ms', true) IS NOT NULL THEN previous.s[previous.chosen] END)) IS NOT NULL
			              AND set_config('lock_timeout', previous.lock_timeout, true) IS NOT NULL
			              THEN previous.s[previous.chosen] END""";

	/**
	 * The savepoint around each slice of a limit's wait, so that a slice that runs out of
	 * time aborts only itself, not the caller's transaction.
	 */
	private static final String SAVEPOINT = "advisory_lock_permit";

	/**
	 * Ends a limit's wait whose last slice ran out of time: the rollback to the savepoint
	 * ends the aborted slice, and the release lets the transaction go on as before it.
	 */
	public static final String WAIT_END = "ROLLBACK TO SAVEPOINT " + SAVEPOINT + "; RELEASE SAVEPOINT " + SAVEPOINT;

	/** The statements with JDBC's {@code ?} parameters. */
	public static final PermitSql JDBC = new PermitSql(LockSql.JDBC, false);

	/** The statements with R2DBC PostgreSQL's numbered {@code $1} parameters. */
	public static final PermitSql R2DBC = new PermitSql(LockSql.R2DBC, true);

	/** Names each statement's namespace, as the plain locks' statements do. */
	private final LockSql lockSql;

	private final boolean numbered;

	/** By number of permits, the statement that takes one, without its comment. */
	private final Map<Integer, String> tries = new ConcurrentHashMap<>();

	/** By number of permits, a slice of the wait for one, without its comment. */
	private final Map<Integer, String> waits = new ConcurrentHashMap<>();

	private PermitSql(LockSql lockSql, boolean numbered) {
		this.lockSql = lockSql;
		this.numbered = numbered;
	}

	/**
	 * Return the statement that takes one free permit of a limit, with its namespace
	 * comment. It tries the slots in order, in a {@code CASE} whose branches PostgreSQL
	 * evaluates in order and stops at the first true one, so that it takes exactly one
	 * slot, never two (a volatile function in {@code WHERE ... LIMIT 1} is not promised
	 * to stop at the first row); its one row is the index of the slot taken, from 0, or
	 * {@code NULL} when every one is held, and there is no row when the
	 * {@link LockSql#LOCKABLE} check refuses the lock, as with {@link LockSql#trySql}. A
	 * slot this transaction holds already is granted again, so it is found too. Its
	 * parameters are the slots ({@code bigint}), slot 0 first: one each rather than an
	 * array, which costs a permit a tenth more than a plain lock to encode and decode.
	 * @param permits how many slots the limit has
	 * @param namespace the namespace, named in a leading comment
	 * @return the statement
	 */
	public String trySql(int permits, String namespace) {
		return this.lockSql.commented(namespace, this.tries.computeIfAbsent(permits, (count) -> {
			StringBuilder sql = new StringBuilder("SELECT CASE");
			for (int slot = 0; slot < count; slot++) {
				sql.append(" WHEN pg_try_advisory_xact_lock(?::bigint) THEN ").append(slot);
			}
			return LockSql.placeholders(sql.append(" END AS permit WHERE ").append(LockSql.LOCKABLE).toString(),
					this.numbered);
		}));
	}

	/**
	 * Return the statement of one slice of a limit's wait, with its namespace comment. It
	 * tries every slot as {@link #trySql} does, then, when none is free, waits for one
	 * chosen slot for at most the slice, by setting {@code lock_timeout} for the
	 * transaction, and restores the previous one once the slot is granted (the previous
	 * value read in a {@code MATERIALIZED} CTE, as in {@link LockSql}'s wait). Its one
	 * row is the slot taken. A slice that runs out of time fails with SQLSTATE
	 * {@code 55P03}: the driver runs it inside a savepoint ({@link #sliceSql}) and rolls
	 * back to it, which also discards the {@code lock_timeout} it set. Its parameters are
	 * the slice in milliseconds ({@code bigint}), the index of the slot to wait for, from
	 * 1 ({@code integer}), and the array of slots ({@code bigint[]}).
	 * @param permits how many slots the limit has
	 * @param namespace the namespace, named in a leading comment
	 * @return the statement
	 */
	public String waitSql(int permits, String namespace) {
		return this.lockSql.commented(namespace, this.waits.computeIfAbsent(permits, (count) -> LockSql
			.placeholders(SLICE.formatted(permitChain(count, "previous.s") + SLICE_WAIT_BRANCH), this.numbered)));
	}

	/**
	 * Return one slice of a limit's wait as the three statements one round trip sends:
	 * the savepoint set (or, after a slice that ran out of time, rolled back to),
	 * {@link #waitSql}, and the savepoint released, which keeps the slot taken in the
	 * transaction. PostgreSQL skips the statements after a failed one. Its parameters are
	 * {@link #waitSql}'s.
	 * @param permits how many slots the limit has
	 * @param resumed whether the savepoint of a slice that ran out of time is set
	 * @param namespace the namespace, named in a leading comment
	 * @return the statements
	 */
	public String sliceSql(int permits, boolean resumed, String namespace) {
		return (resumed ? "ROLLBACK TO SAVEPOINT " : "SAVEPOINT ") + SAVEPOINT + "; " + waitSql(permits, namespace)
				+ "; RELEASE SAVEPOINT " + SAVEPOINT;
	}

	/**
	 * Return {@link #sliceSql} with its values written in, for a driver that sends
	 * several statements together only without parameters (R2DBC PostgreSQL). They are
	 * numbers, so writing them in is safe.
	 * @param slots the limit's slots, slot 0 first
	 * @param resumed whether the savepoint of a slice that ran out of time is set
	 * @param slice how long to wait for the chosen slot
	 * @param waited the index of the slot to wait for, from 1
	 * @param namespace the namespace, named in a leading comment
	 * @return the statements
	 */
	public static String sliceWithValuesSql(List<Long> slots, boolean resumed, Duration slice, int waited,
			String namespace) {
		return LockSql.withValues(JDBC.sliceSql(slots.size(), resumed, namespace),
				String.valueOf(Math.max(1, slice.toMillis())), String.valueOf(waited), LockSql.arrayLiteral(slots));
	}

	/**
	 * The {@code CASE} that tries each slot in order and gives the first one taken,
	 * without its {@code END}: the wait adds one more branch.
	 */
	private static String permitChain(int permits, String slots) {
		StringBuilder chain = new StringBuilder("CASE");
		for (int slot = 1; slot <= permits; slot++) {
			chain.append(" WHEN pg_try_advisory_xact_lock(")
				.append(slots)
				.append('[')
				.append(slot)
				.append("]) THEN ")
				.append(slots)
				.append('[')
				.append(slot)
				.append(']');
		}
		return chain.toString();
	}

	/**
	 * What a try of a limit's slots found.
	 *
	 * @param lockable whether a lock is allowed here (isolation, recovery); when not,
	 * nothing was taken
	 * @param slot the slot taken, or {@code null} when every one is held
	 */
	public record PermitTry(boolean lockable, @Nullable Long slot) {

		/**
		 * Read the row of a limit's try, as either driver reads it: none when the check
		 * refused the lock, else the index of the slot taken, or {@code null} when every
		 * one is held.
		 * @param row whether the statement returned its row
		 * @param index the row's one column, or {@code null}
		 * @param slots the slots tried, slot 0 first
		 * @return what the try found
		 */
		public static PermitTry read(boolean row, @Nullable Integer index, List<Long> slots) {
			return new PermitTry(row, (index != null) ? slots.get(index) : null);
		}

	}

	/**
	 * What the opening statements of a limit's session found.
	 *
	 * @param tried what the try of the permits found
	 * @param transactionTimeout {@code transaction_timeout} as PostgreSQL shows it, or
	 * {@code null} before 17
	 */
	public record OpenedLimit(PermitTry tried, @Nullable String transactionTimeout) {

	}

}
