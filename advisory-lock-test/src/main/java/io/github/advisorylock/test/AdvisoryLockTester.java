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

package io.github.advisorylock.test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.core.session.HeldSession;
import io.github.advisorylock.test.TestSessions.TestSession;

import org.springframework.util.Assert;

/**
 * What an application's tests use to prove that its code is locked and that it survives a
 * lock it cannot get, against the application's own PostgreSQL. Inject it into a test
 * class annotated
 * {@link AutoConfigureAdvisoryLockTester @AutoConfigureAdvisoryLockTester}.
 * <ul>
 * <li>{@link #hold(String, Object)} holds a lock from outside the application, so that a
 * test can drive the busy path of a call: a {@code TRY} refused, a {@code SKIP} skipped,
 * a {@code BLOCK} waiting (seen with {@link OutsideLock#awaitWaiters(int)}).</li>
 * <li>{@link #concurrentCalls(int, Callable)} runs calls of the application's code at
 * once, for an assertion that its lock serializes them
 * ({@link ConcurrentCallsAssert}).</li>
 * <li>{@link #terminateHolder(String, Object)} ends the session of the application's call
 * that holds a lock, as the server would, and makes the call see the loss at once, so
 * that a test can drive a job's loss handling.</li>
 * <li>{@link #assertNoLockLeft()} fails when an advisory lock the application took
 * outlived its transaction or call.</li>
 * </ul>
 * It works through the application's default {@code DataSource} (the only one, or the
 * primary one), or without one its default R2DBC {@code ConnectionFactory}, on
 * connections of its own, outside any transaction of the test. Keys are derived with the
 * application's {@link LockKeyStrategy}, as its locks derive theirs. Its waits end after
 * 30 seconds with an {@link AssertionError} that says what {@code pg_locks} showed: a
 * bound that only turns a hang into a failure.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public final class AdvisoryLockTester {

	private static final String TRY_LOCK = "SELECT pg_catalog.pg_backend_pid() AS pid, "
			+ "pg_catalog.pg_try_advisory_xact_lock(?) AS acquired";

	private static final String TERMINATE = "SELECT pg_catalog.pg_terminate_backend(?) AS terminated";

	/**
	 * Whether a backend is still there: it leaves {@code pg_stat_activity} and
	 * {@code pg_locks}, and so releases its locks, only once it has exited.
	 */
	private static final String PRESENT = "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity WHERE pid = ?) "
			+ "OR EXISTS (SELECT 1 FROM pg_catalog.pg_locks WHERE pid = ?) AS present";

	private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final TestSessions sessions;

	private final LockKeyStrategy keyStrategy;

	private final LockedKeys lockedKeys;

	private final LockedBodies bodies;

	private final Set<OutsideLock> outsideLocks = ConcurrentHashMap.newKeySet();

	AdvisoryLockTester(TestSessions sessions, LockKeyStrategy keyStrategy, LockedKeys lockedKeys, LockedBodies bodies) {
		this.sessions = sessions;
		this.keyStrategy = keyStrategy;
		this.lockedKeys = lockedKeys;
		this.bodies = bodies;
	}

	/**
	 * Return the key the application derives for a namespace and value.
	 * @param namespace the namespace, as in {@code @AdvisoryLocked(namespace = …)}
	 * @param value one key value, as the key expression gives it
	 * @return the 64-bit key
	 */
	public long key(String namespace, Object value) {
		return this.keyStrategy.key(namespace, value);
	}

	/**
	 * Hold the exclusive lock of a namespace and value from outside the application, in a
	 * transaction of a session of the tester's own, until the returned lock is released.
	 * @param namespace the namespace, as in {@code @AdvisoryLocked(namespace = …)}
	 * @param value one key value, as the key expression gives it
	 * @return the lock, to release (try-with-resources)
	 * @throws IllegalStateException if another session holds the lock already, naming it
	 */
	public OutsideLock hold(String namespace, Object value) {
		return hold(namespace, value, List.of(key(namespace, value)));
	}

	/**
	 * Hold every permit of a concurrency limit ({@code @AdvisoryLocked(permits = …)}) of
	 * a namespace and value from outside the application, in one transaction of a session
	 * of the tester's own, until the returned lock is released: the limit's busy path,
	 * where a call of the application waits, is refused or skipped.
	 * @param namespace the namespace, as in {@code @AdvisoryLocked(namespace = …)}
	 * @param value the key value, as the key expression gives it
	 * @param permits the limit's permits
	 * @return the lock, to release (try-with-resources)
	 * @throws IllegalStateException if another session holds a permit already, naming it
	 */
	public OutsideLock holdPermits(String namespace, Object value, int permits) {
		Assert.isTrue(permits >= 1, () -> "Permits are at least 1, not " + permits);
		return hold(namespace, value, permitKeys(key(namespace, value), permits));
	}

	static List<Long> permitKeys(long key, int permits) {
		return IntStream.range(0, permits).mapToObj((slot) -> AdvisoryLockKeys.permitSlot(key, slot)).toList();
	}

	/**
	 * Return concurrent calls of the application's code, to assert that a lock serializes
	 * them ({@code assertThat(calls).areSerializedBy(namespace, value)}): see
	 * {@link ConcurrentCallsAssert}.
	 * @param count how many calls to run at once, at least 2
	 * @param call one call, such as {@code () -> service.request(userId)}
	 * @return the calls, which run when an assertion runs them
	 */
	public ConcurrentCalls concurrentCalls(int count, Callable<?> call) {
		return new ConcurrentCalls(this, count, call);
	}

	OutsideLock hold(String namespace, Object value, List<Long> keys) {
		TestSession session = this.sessions.open();
		try {
			session.beginTransaction();
			int pid = 0;
			for (long key : keys) {
				Map<String, Object> row = session.query(TRY_LOCK, key).get(0);
				pid = ((Number) row.get("pid")).intValue();
				if (!Boolean.TRUE.equals(row.get("acquired"))) {
					List<PgLock> holders = PgLock.read(session)
						.stream()
						.filter((lock) -> lock.key() == key && !lock.fence() && lock.granted())
						.toList();
					throw new IllegalStateException("Could not hold the lock of namespace '" + namespace
							+ "' and value '" + value + "' (key " + key + ") from outside: it is held already, "
							+ holders + ". A call of the application is still running, or a lock of an earlier test "
							+ "was not released");
				}
			}
			OutsideLock lock = new OutsideLock(this, session, namespace, value, keys, pid);
			this.outsideLocks.add(lock);
			return lock;
		}
		catch (RuntimeException ex) {
			session.close();
			throw ex;
		}
	}

	/**
	 * End the session that holds the lock of a namespace and value, as the server ends
	 * one ({@code pg_terminate_backend}), wait until it has exited, and make the
	 * application's call that held it see the loss at once rather than at its next
	 * heartbeat: for an invocation-scoped lock, {@code LockHandle.isLost()} answers
	 * {@code true}, {@code checkHeld()} throws {@code LockLostException}, and fenced
	 * writes are refused. A transaction-scoped holder's next statement fails, as its
	 * connection has gone. The database user of the application's {@code DataSource} or
	 * {@code ConnectionFactory} must be the holder's role, a member of it, or of
	 * {@code pg_signal_backend}. Where several sessions hold the key (a {@code SHARED}
	 * lock), the one with the lowest process id is terminated; a concurrency limit's
	 * holder is found on its first permit only (the limit's own key).
	 * @param namespace the namespace, as in {@code @AdvisoryLocked(namespace = …)}
	 * @param value one key value, as the key expression gives it
	 * @return the backend process id of the session terminated
	 * @throws AssertionError if no session holds the lock
	 * @throws IllegalStateException if the holder is a lock held from outside by this
	 * tester (release it instead), or PostgreSQL refused to terminate it
	 */
	public int terminateHolder(String namespace, Object value) {
		long key = key(namespace, value);
		int pid;
		try (TestSession session = this.sessions.open()) {
			List<PgLock> locks = PgLock.read(session);
			PgLock holder = locks.stream()
				.filter((lock) -> lock.key() == key && !lock.fence() && lock.granted())
				.findFirst()
				.orElseThrow(() -> new AssertionError("No session holds the lock of namespace '" + namespace
						+ "' and value '" + value + "' (key " + key + ") to terminate; pg_locks shows "
						+ (locks.isEmpty() ? "no advisory lock" : locks)));
			pid = holder.pid();
			for (OutsideLock outside : this.outsideLocks) {
				Assert.state(outside.pid() != pid, () -> "The holder of the lock of namespace '" + namespace
						+ "' and value '" + value + "' is " + outside + ": release it instead");
			}
			terminate(session, pid);
			awaitExit(session, pid);
		}
		HeldSession.heartbeatHolders(key);
		return pid;
	}

	private static void terminate(TestSession session, int pid) {
		Object terminated;
		try {
			terminated = session.query(TERMINATE, pid).get(0).get("terminated");
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("PostgreSQL refused to terminate session " + pid + ": the application's "
					+ "database user must be the holder's role, a member of it, or of pg_signal_backend "
					+ "(GRANT pg_signal_backend TO the user)", ex);
		}
		Assert.state(Boolean.TRUE.equals(terminated), () -> "PostgreSQL did not terminate session " + pid
				+ ": it had exited, or is not a backend of this server");
	}

	private static void awaitExit(TestSession session, int pid) {
		long deadline = System.nanoTime() + TestSessions.HANG_TIMEOUT.toNanos();
		while (Boolean.TRUE.equals(session.query(PRESENT, pid, pid).get(0).get("present"))) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Session " + pid + " was still there " + TestSessions.HANG_TIMEOUT.toSeconds()
						+ " s after it was told to terminate");
			}
			LockSupport.parkNanos(POLL_NANOS);
		}
	}

	/**
	 * Assert that no advisory lock the application asked for since the last check (or
	 * since the context started) is still held or awaited by any session of its database,
	 * and that every {@link OutsideLock} of the tester was released. Only the keys the
	 * application's lock operations were asked for are looked at, so that locks of other
	 * processes on the same database (test classes running in parallel forks) do not
	 * count, unless they lock the same keys. Locks held from outside that were not
	 * released are released, so that the next test starts clean.
	 * @throws AssertionError naming each lock left, and each session holding one
	 */
	public void assertNoLockLeft() {
		List<OutsideLock> unreleased = List.copyOf(this.outsideLocks);
		unreleased.forEach(OutsideLock::release);
		Set<Long> keys = this.lockedKeys.drain();
		List<PgLock> left = List.of();
		if (!keys.isEmpty()) {
			try (TestSession session = this.sessions.open()) {
				left = PgLock.read(session).stream().filter((lock) -> keys.contains(lock.key())).toList();
			}
		}
		if (!unreleased.isEmpty() || !left.isEmpty()) {
			StringBuilder message = new StringBuilder("Advisory locks outlived the test.");
			if (!left.isEmpty()) {
				message.append(" Locks of the application: ")
					.append(left)
					.append(". A lock outlives its call when its transaction stays open: a test-managed transaction"
							+ " (@Transactional on the test, or a test slice's), or a call still running.");
			}
			if (!unreleased.isEmpty()) {
				message.append(" Held from outside and not released (now released): ")
					.append(unreleased)
					.append(". Hold them in a try-with-resources block.");
			}
			throw new AssertionError(message.toString());
		}
	}

	LockedBodies bodies() {
		return this.bodies;
	}

	void forgetLockedKeys() {
		this.lockedKeys.drain();
	}

	void released(OutsideLock lock) {
		this.outsideLocks.remove(lock);
	}

	/**
	 * Poll the application database's advisory locks until a condition holds.
	 * @param condition the condition on the locks
	 * @param what what is awaited, for the failure's message
	 * @throws AssertionError if it does not hold within the hang timeout
	 */
	void awaitLocks(Predicate<List<PgLock>> condition, Supplier<String> what) {
		try (TestSession session = this.sessions.open()) {
			awaitLocks(session, condition, what);
		}
	}

	/**
	 * Poll the application database's advisory locks on a session of the kit's until a
	 * condition holds.
	 * @param session the session to poll on
	 * @param condition the condition on the locks
	 * @param what what is awaited, for the failure's message
	 * @throws AssertionError if it does not hold within the hang timeout
	 */
	static void awaitLocks(TestSession session, Predicate<List<PgLock>> condition, Supplier<String> what) {
		long deadline = System.nanoTime() + TestSessions.HANG_TIMEOUT.toNanos();
		List<PgLock> locks = PgLock.read(session);
		while (!condition.test(locks)) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Waited " + TestSessions.HANG_TIMEOUT.toSeconds() + " s for " + what.get()
						+ "; pg_locks shows " + (locks.isEmpty() ? "no advisory lock" : locks));
			}
			LockSupport.parkNanos(POLL_NANOS);
			locks = PgLock.read(session);
		}
	}

	TestSession openSession() {
		return this.sessions.open();
	}

}
