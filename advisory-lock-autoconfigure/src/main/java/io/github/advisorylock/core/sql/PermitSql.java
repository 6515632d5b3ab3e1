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
 * The text of a concurrency limit's statements, shared by the drivers with
 * {@link LockSql}'s namespace comment and {@link LockSql#LOCKABLE} check: a try takes
 * exactly one free slot, and a waiter waits in slices, each in a savepoint, for one
 * chosen slot ({@code core.PermitSlots}).
 *
 * @author advisory-lock authors
 */
public final class PermitSql {

	/** A slice of a wait: {@code %s} is the tries' chain, ended by the waiting branch. */
	private static final String SLICE = """
			WITH previous AS MATERIALIZED (
			  SELECT pg_catalog.current_setting('lock_timeout') AS lock_timeout, ?::bigint AS slice, ?::integer AS chosen,
			         ?::bigint[] AS s)
			SELECT %s AS permit
			FROM previous
			WHERE %s""";

	/** The waiting branch of {@code SLICE}, and the chain's {@code END}. */
	private static final String SLICE_WAIT_BRANCH = """
			 WHEN (SELECT pg_catalog.count(*) FROM pg_catalog.pg_advisory_xact_lock(CASE WHEN \
			pg_catalog.set_config('lock_timeout', previous.slice OPERATOR(pg_catalog.||) 'ms', true) IS NOT NULL \
			THEN previous.s[previous.chosen] END)) IS NOT NULL
			              AND pg_catalog.set_config('lock_timeout', previous.lock_timeout, true) IS NOT NULL
			              THEN previous.s[previous.chosen] END""";

	/** Around each slice, so that one that runs out aborts only itself. */
	private static final String SAVEPOINT = "advisory_lock_permit";

	/**
	 * Ends a wait whose last slice ran out of time: the rollback ends the aborted slice,
	 * and the release lets the transaction go on as before it.
	 */
	public static final String WAIT_END = "ROLLBACK TO SAVEPOINT " + SAVEPOINT + "; RELEASE SAVEPOINT " + SAVEPOINT;

	/** The statements with JDBC's {@code ?} parameters. */
	public static final PermitSql JDBC = new PermitSql(LockSql.JDBC, false);

	/** The statements with R2DBC PostgreSQL's numbered {@code $1} parameters. */
	public static final PermitSql R2DBC = new PermitSql(LockSql.R2DBC, true);

	private final LockSql lockSql;

	private final boolean numbered;

	private final Map<Integer, String> tries = new ConcurrentHashMap<>();

	private final Map<Integer, String> waits = new ConcurrentHashMap<>();

	private PermitSql(LockSql lockSql, boolean numbered) {
		this.lockSql = lockSql;
		this.numbered = numbered;
	}

	/**
	 * Return the statement that takes one free permit, with its namespace comment. The
	 * slots are tried in a {@code CASE}, which stops at the first true branch, so it
	 * takes exactly one (a volatile function in {@code WHERE ... LIMIT 1} is not promised
	 * to stop at one row: keep the {@code CASE}). Its row is the index of the slot taken,
	 * from 0, or {@code NULL} when all are held (a slot this transaction holds is granted
	 * again); no row when {@link LockSql#LOCKABLE} refuses. Parameters: each slot
	 * ({@code bigint}), slot 0 first, one each, as an array costs more
	 * (docs/decisions.md, "Concurrency limits").
	 * @param permits how many slots the limit has
	 * @param namespace the namespace, named in a leading comment
	 */
	public String trySql(int permits, String namespace) {
		return this.lockSql.commented(namespace, this.tries.computeIfAbsent(permits, (count) -> {
			StringBuilder sql = new StringBuilder("SELECT CASE");
			for (int slot = 0; slot < count; slot++) {
				sql.append(" WHEN pg_catalog.pg_try_advisory_xact_lock(?::bigint) THEN ").append(slot);
			}
			return LockSql.placeholders(sql.append(" END AS permit WHERE ").append(LockSql.LOCKABLE).toString(),
					this.numbered);
		}));
	}

	/**
	 * Return the statement of one slice of a wait, with its namespace comment: it tries
	 * every slot as {@link #trySql} does, then waits for the chosen one with
	 * {@code lock_timeout} set to the slice, restored once granted (read in a
	 * {@code MATERIALIZED} CTE, as in {@link LockSql}'s wait). Its row is the slot taken;
	 * none on a standby ({@link LockSql#NOT_IN_RECOVERY}), where it takes nothing.
	 * Running out fails with {@code 55P03}, so it runs in a savepoint
	 * ({@link #sliceSql}). Parameters: the slice in ms ({@code bigint}), the index of the
	 * slot to wait for, from 1 ({@code integer}), the slots ({@code bigint[]}).
	 * @param permits how many slots the limit has
	 * @param namespace the namespace, named in a leading comment
	 */
	public String waitSql(int permits, String namespace) {
		return this.lockSql.commented(namespace, this.waits.computeIfAbsent(permits,
				(count) -> LockSql.placeholders(
						SLICE.formatted(permitChain(count, "previous.s") + SLICE_WAIT_BRANCH, LockSql.NOT_IN_RECOVERY),
						this.numbered)));
	}

	/**
	 * Return one slice as the three statements of one round trip: the savepoint set (or
	 * rolled back to, after a slice that ran out), {@link #waitSql}, and the savepoint
	 * released, keeping the slot; PostgreSQL skips those after a failed one. Parameters:
	 * {@link #waitSql}'s.
	 * @param permits how many slots the limit has
	 * @param resumed whether the savepoint of a slice that ran out of time is set
	 * @param namespace the namespace, named in a leading comment
	 */
	public String sliceSql(int permits, boolean resumed, String namespace) {
		return (resumed ? "ROLLBACK TO SAVEPOINT " : "SAVEPOINT ") + SAVEPOINT + "; " + waitSql(permits, namespace)
				+ "; RELEASE SAVEPOINT " + SAVEPOINT;
	}

	/**
	 * Return {@link #sliceSql} with its values, numbers only, written in, for R2DBC
	 * PostgreSQL, which sends several statements together only without parameters.
	 * @param slots the limit's slots, slot 0 first
	 * @param resumed whether the savepoint of a slice that ran out of time is set
	 * @param slice how long to wait for the chosen slot
	 * @param waited the index of the slot to wait for, from 1
	 * @param namespace the namespace, named in a leading comment
	 */
	public static String sliceWithValuesSql(List<Long> slots, boolean resumed, Duration slice, int waited,
			String namespace) {
		return LockSql.withValues(JDBC.sliceSql(slots.size(), resumed, namespace),
				String.valueOf(Math.max(1, slice.toMillis())), String.valueOf(waited), LockSql.arrayLiteral(slots));
	}

	/** The {@code CASE} of tries without its {@code END}: the wait adds a branch. */
	private static String permitChain(int permits, String slots) {
		StringBuilder chain = new StringBuilder("CASE");
		for (int slot = 1; slot <= permits; slot++) {
			chain.append(" WHEN pg_catalog.pg_try_advisory_xact_lock(")
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
	 * @param lockable whether a lock is allowed here; when not, nothing was taken
	 * @param slot the slot taken, or {@code null} when every one is held
	 */
	public record PermitTry(boolean lockable, @Nullable Long slot) {

		/**
		 * Read a limit's try's row for either driver: none when the check refused, else
		 * the index of the slot taken, or {@code null} when all are held.
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
	 * @param transactionTimeout {@code transaction_timeout}, or {@code null} before 17
	 */
	public record OpenedLimit(PermitTry tried, @Nullable String transactionTimeout) {

	}

}
