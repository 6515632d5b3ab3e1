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

package io.github.advisorylock.testsupport;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import javax.sql.DataSource;

/**
 * Reads advisory locks from {@code pg_locks}, so that concurrent tests synchronize on
 * facts (a waiter is waiting when its row shows {@code granted = false}) rather than on
 * sleeps.
 */
public final class PgLocks {

	/**
	 * Long enough for any real wait on a loaded machine; it only turns a hang into a
	 * failure.
	 */
	public static final Duration HANG_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The SQL expression of the 64-bit key of a {@code pg_locks} row, for tests that
	 * query {@code pg_locks} on a session of their own (their own backend's locks, or to
	 * terminate a holder). A bigint key {@code k} is stored as {@code classid = k >> 32}
	 * and {@code objid = k & 0xffffffff} ({@code objsubid = 1}); the two-int form has
	 * {@code objsubid = 2}, and the queries here leave it out, but for {@link #fences()}.
	 */
	public static final String KEY_EXPRESSION = "((classid::bigint << 32) | objid::bigint)";

	private static final String ADVISORY_LOCKS = "SELECT pid, " + KEY_EXPRESSION + " AS key, mode, granted "
			+ "FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 %s ORDER BY key, granted DESC, pid";

	private static final String EVERY_DATABASE = ADVISORY_LOCKS.formatted("");

	private static final String THIS_DATABASE = ADVISORY_LOCKS
		.formatted("AND database = (SELECT oid FROM pg_database WHERE datname = current_database())");

	/**
	 * The first {@code int4} of a lock session's marker, the two-int advisory lock its
	 * transaction takes at its first fenced write; the same value as the library's
	 * {@code FenceSql.MARKER_SPACE}, which a test compares.
	 */
	public static final int MARKER_SPACE = 0x6D61726B;

	private static final String TWO_INT_LOCKS = "SELECT pid, " + KEY_EXPRESSION + " AS key, mode, granted "
			+ "FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND classid::bigint %s " + MARKER_SPACE
			+ " ORDER BY key, granted DESC, pid";

	/**
	 * The fence locks of fenced writes: a key's fence is the same 64 bits in the two-int
	 * form ({@code objsubid = 2}), so the same expression gives the key back. Markers are
	 * left out.
	 */
	private static final String FENCES = TWO_INT_LOCKS.formatted("<>");

	private static final String MARKERS = TWO_INT_LOCKS.formatted("=");

	private static final String WAITING_FOR = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
			+ "AND objsubid = 1 AND NOT granted AND " + KEY_EXPRESSION
			+ " = ? AND waitstart <= clock_timestamp() - ? * interval '1 millisecond'";

	/**
	 * Whether a backend is still there: in {@code pg_stat_activity}, or holding or
	 * awaiting any lock. A backend leaves both only once it has exited.
	 */
	private static final String BACKEND_PRESENT = "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = ?) "
			+ "OR EXISTS (SELECT 1 FROM pg_locks WHERE pid = ?)";

	private static final String ASLEEP_ON = "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
			+ "WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND NOT l.granted AND "
			+ "((l.classid::bigint << 32) | l.objid::bigint) = ? AND a.wait_event_type = 'Lock'";

	/** The statement a backend runs, or ran last. */
	private static final String RUNNING_STATEMENT = "SELECT query FROM pg_stat_activity WHERE pid = ?";

	private final DataSource observer;

	/**
	 * Create a reader that queries through its own connections, never those of the
	 * sessions it watches.
	 * @param observer the data source to query with
	 */
	public PgLocks(DataSource observer) {
		this.observer = observer;
	}

	/**
	 * Return the advisory locks of every database of the server, held and awaited.
	 * @return the locks, by key, granted first
	 */
	public List<AdvisoryLock> all() {
		return read(EVERY_DATABASE);
	}

	/**
	 * Return the advisory locks, held and awaited, of the database the observer connects
	 * to only: where a test with several databases on one server needs to tell them
	 * apart.
	 * @return the locks, by key, granted first
	 */
	public List<AdvisoryLock> inThisDatabase() {
		return read(THIS_DATABASE);
	}

	/**
	 * Return the fence locks of fenced writes, held and awaited, in every database of the
	 * server: advisory locks in the two-int key space ({@code objsubid = 2}), each with
	 * the 64-bit key it fences.
	 * @return the fence locks, by key, granted first
	 */
	public List<AdvisoryLock> fences() {
		return read(FENCES);
	}

	/**
	 * Return the markers of lock sessions that made a fenced write, in every database of
	 * the server: advisory locks in the two-int key space whose first {@code int4} is
	 * {@link #MARKER_SPACE}.
	 * @return the markers, granted first
	 */
	public List<AdvisoryLock> markers() {
		return read(MARKERS);
	}

	/**
	 * Wait until the given number of transactions wait for a key's fence lock
	 * ({@code granted = false}).
	 * @param key the 64-bit key the fence is of
	 * @param waiters how many waiters to wait for
	 * @throws AssertionError if they do not appear within {@link #HANG_TIMEOUT}
	 */
	public void awaitFenceWaiters(long key, int waiters) {
		long deadline = System.nanoTime() + HANG_TIMEOUT.toNanos();
		List<AdvisoryLock> fences = fences();
		while (fences.stream().filter((lock) -> lock.key() == key && !lock.granted()).count() < waiters) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + waiters + " waiter(s) on the fence of key " + key
						+ "; pg_locks shows the fences " + fences);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
			fences = fences();
		}
	}

	/**
	 * Terminate a backend as the server ends a session ({@code pg_terminate_backend}),
	 * and wait until it has exited. {@code pg_terminate_backend} only signals the backend
	 * and returns; until the backend has exited, its session still holds its locks, so a
	 * test that asserts what follows a lost session must wait for this fact first. (The
	 * function's own timeout argument is not used: PostgreSQL 13, on which the contract
	 * also runs, lacks it.)
	 * @param pid the backend process id
	 * @throws AssertionError if there was no such backend, or it is still there after
	 * {@link #HANG_TIMEOUT}
	 */
	public void terminate(int pid) {
		try (Connection connection = this.observer.getConnection()) {
			try (PreparedStatement terminate = connection.prepareStatement("SELECT pg_terminate_backend(?)")) {
				terminate.setInt(1, pid);
				try (ResultSet result = terminate.executeQuery()) {
					result.next();
					if (!result.getBoolean(1)) {
						throw new AssertionError("No backend " + pid + " to terminate");
					}
				}
			}
			long deadline = System.nanoTime() + HANG_TIMEOUT.toNanos();
			try (PreparedStatement present = connection.prepareStatement(BACKEND_PRESENT)) {
				present.setInt(1, pid);
				present.setInt(2, pid);
				while (true) {
					try (ResultSet result = present.executeQuery()) {
						result.next();
						if (!result.getBoolean(1)) {
							return;
						}
					}
					if (System.nanoTime() > deadline) {
						throw new AssertionError("Backend " + pid + " was terminated but is still there after "
								+ HANG_TIMEOUT + "; pg_locks shows " + all());
					}
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not terminate backend " + pid, ex);
		}
	}

	/**
	 * Terminate the session that holds a key, the first if several do, and wait until it
	 * has exited ({@link #terminate(int)}).
	 * @param key the 64-bit key
	 * @return the pid of the session that was terminated
	 * @throws java.util.NoSuchElementException if no session holds the key
	 */
	public int terminateHolderOf(long key) {
		int pid = holderPid(key);
		terminate(pid);
		return pid;
	}

	private List<AdvisoryLock> read(String sql) {
		try (Connection connection = this.observer.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql);
				ResultSet result = statement.executeQuery()) {
			List<AdvisoryLock> locks = new ArrayList<>();
			while (result.next()) {
				locks.add(new AdvisoryLock(result.getInt("pid"), result.getLong("key"), result.getString("mode"),
						result.getBoolean("granted")));
			}
			return locks;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read pg_locks", ex);
		}
	}

	/**
	 * Return the locks on one key.
	 * @param key the 64-bit key
	 * @return the locks on it, granted first
	 */
	public List<AdvisoryLock> on(long key) {
		return all().stream().filter((lock) -> lock.key() == key).toList();
	}

	/**
	 * Return the session that waits for a key ({@code granted = false}), the first if
	 * several do.
	 * @param key the 64-bit key
	 * @return its pid
	 * @throws java.util.NoSuchElementException if no session waits for it
	 */
	public int waiterPid(long key) {
		return on(key).stream().filter((lock) -> !lock.granted()).findFirst().orElseThrow().pid();
	}

	/**
	 * Return the statement the session that waits for a key runs, as
	 * {@code pg_stat_activity} shows it.
	 * @param key the 64-bit key
	 * @return its text
	 * @throws java.util.NoSuchElementException if no session waits for it
	 */
	public String waiterStatement(long key) {
		int pid = waiterPid(key);
		try (Connection connection = this.observer.getConnection();
				PreparedStatement statement = connection.prepareStatement(RUNNING_STATEMENT)) {
			statement.setInt(1, pid);
			try (ResultSet result = statement.executeQuery()) {
				if (!result.next()) {
					throw new IllegalStateException("Session " + pid + " is gone from pg_stat_activity");
				}
				return result.getString(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read pg_stat_activity", ex);
		}
	}

	/**
	 * Return the session that holds a key, the first if several do.
	 * @param key the 64-bit key
	 * @return its pid
	 * @throws java.util.NoSuchElementException if no session holds it
	 */
	public int holderPid(long key) {
		return on(key).stream().filter(AdvisoryLock::granted).findFirst().orElseThrow().pid();
	}

	/**
	 * Wait until the given number of sessions wait for a key: a {@code granted = false}
	 * row in {@code pg_locks}, and the backend asleep on it ({@code pg_stat_activity}
	 * shows {@code wait_event_type = 'Lock'}, which PostgreSQL reports a moment after the
	 * row appears).
	 * @param key the 64-bit key
	 * @param waiters how many waiters to wait for
	 * @throws AssertionError if they do not appear within {@link #HANG_TIMEOUT}
	 */
	public void awaitWaiters(long key, int waiters) {
		long deadline = System.nanoTime() + HANG_TIMEOUT.toNanos();
		try (Connection connection = this.observer.getConnection();
				PreparedStatement statement = connection.prepareStatement(ASLEEP_ON)) {
			statement.setLong(1, key);
			while (true) {
				try (ResultSet result = statement.executeQuery()) {
					result.next();
					if (result.getInt(1) >= waiters) {
						return;
					}
				}
				if (System.nanoTime() > deadline) {
					throw new AssertionError("Timed out waiting for " + waiters + " waiter(s) on key " + key
							+ "; pg_locks shows " + all());
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read pg_locks", ex);
		}
	}

	/**
	 * Wait until a session has waited for a key at least the given time, by PostgreSQL's
	 * own clock ({@code pg_locks.waitstart}, PostgreSQL 14 and later), or until
	 * {@code giveUp} says the wait is over.
	 * @param key the 64-bit key
	 * @param age how long the waiter must have waited
	 * @param giveUp checked between polls; {@code true} stops the wait
	 * @return whether such a waiter was seen
	 * @throws AssertionError if neither happens within {@link #HANG_TIMEOUT}
	 */
	public boolean awaitWaitingFor(long key, Duration age, BooleanSupplier giveUp) {
		long deadline = System.nanoTime() + HANG_TIMEOUT.toNanos();
		try (Connection connection = this.observer.getConnection();
				PreparedStatement statement = connection.prepareStatement(WAITING_FOR)) {
			statement.setLong(1, key);
			statement.setLong(2, age.toMillis());
			while (true) {
				try (ResultSet result = statement.executeQuery()) {
					result.next();
					if (result.getInt(1) > 0) {
						return true;
					}
				}
				if (giveUp.getAsBoolean()) {
					return false;
				}
				if (System.nanoTime() > deadline) {
					throw new AssertionError("Timed out waiting for a waiter of " + age + " on key " + key);
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read pg_locks", ex);
		}
	}

	/**
	 * Wait until a condition on the advisory locks holds.
	 * @param description what is awaited, for the failure message
	 * @param condition the condition
	 * @throws AssertionError if it does not hold within {@link #HANG_TIMEOUT}
	 */
	public void await(String description, Predicate<List<AdvisoryLock>> condition) {
		long deadline = System.nanoTime() + HANG_TIMEOUT.toNanos();
		List<AdvisoryLock> locks = all();
		while (!condition.test(locks)) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + description + "; pg_locks shows " + locks);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
			locks = all();
		}
	}

	/**
	 * One row of {@code pg_locks} for an advisory lock on a bigint key.
	 *
	 * @param pid the backend process id of the session
	 * @param key the 64-bit key
	 * @param mode {@code ExclusiveLock} or {@code ShareLock}
	 * @param granted whether it is held ({@code true}) or awaited ({@code false})
	 */
	public record AdvisoryLock(int pid, long key, String mode, boolean granted) {

	}

}
