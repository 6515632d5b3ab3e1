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

package io.github.advisorylock.contract;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Tests of fenced writes, from a user's view: a transaction-scoped lock for a key that an
 * enclosing invocation-scoped call of the same thread holds takes the key's fence lock
 * and checks that the enclosing lock's own session still holds the key, so that the old
 * holder's transactions can no longer write once its lock is lost, and one already
 * writing ends before the next holder's first fenced write begins.
 *
 * <p>
 * Two templates on one database stand for two instances: the old holder and the new one.
 * A paused or cut-off old holder is stood for by terminating its lock session, as the
 * server would after its dead-man switch. Each subclass gives the application's data
 * source: straight to the database, or through PgBouncer in transaction mode.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
abstract class AbstractFencedWritesTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/** Long enough that no heartbeat notices a loss while a test runs. */
	private static final Duration LONG_HEARTBEAT = Duration.ofHours(1);

	@RegisterExtension
	final JdbcLockFixture fixture = newFixture().withLockSettings((locks) -> locks.setHeartbeat(LONG_HEARTBEAT));

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final JdbcTemplate observer = this.fixture.observer();

	private final String namespace = "fenced-" + UUID.randomUUID();

	/**
	 * Return the fixture of the application's data source the tests lock and write
	 * through.
	 * @return the fixture, with room for two instances' lock sessions and writers
	 */
	protected abstract JdbcLockFixture newFixture();

	@BeforeEach
	void createTable() {
		this.observer.execute("CREATE TABLE IF NOT EXISTS fenced_rows (namespace text NOT NULL, writer text NOT NULL)");
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private LockRequest invocation(Object... keys) {
		return LockRequest.of(this.namespace, keys).withScope(LockScope.INVOCATION);
	}

	private void write(JdbcTemplate jdbc, String writer) {
		jdbc.update("INSERT INTO fenced_rows (namespace, writer) VALUES (?, ?)", this.namespace, writer);
	}

	private int rows(JdbcTemplate jdbc, String writer) {
		Integer rows = jdbc.queryForObject("SELECT count(*) FROM fenced_rows WHERE namespace = ? AND writer = ?",
				Integer.class, this.namespace, writer);
		return (rows != null) ? rows : 0;
	}

	/**
	 * Terminate the lock session that holds a key, as the server ends the session of a
	 * paused or cut-off holder, and wait until its backend has exited: a free key alone
	 * does not say its marker is free too, and a fenced write probes the marker.
	 */
	private void terminateHolderOf(long key) {
		this.pgLocks.terminateHolderOf(key);
	}

	/**
	 * Another instance's operations on the same database, closed with the test.
	 */
	private AdvisoryLockTemplate otherInstance(Duration heartbeat) {
		AdvisoryLockTemplate other = new AdvisoryLockTemplate(this.fixture.dataSource());
		other.setHeartbeat(heartbeat);
		other.setInstanceName("new-holder");
		return other;
	}

	@Test
	void aTransactionFencedUnderAHeldLockCommits() {
		AdvisoryLockTemplate locks = this.fixture.locks();
		JdbcTemplate jdbc = this.fixture.jdbc();
		locks.execute(invocation(1), (handle) -> {
			int holder = this.pgLocks.holderPid(key(1));
			this.fixture.transaction().executeWithoutResult((status) -> {
				locks.lock(LockRequest.of(this.namespace, 1));
				write(jdbc, "holder");
				// The writer's transaction holds the fence, and the lock session still
				// holds the key.
				assertThat(this.pgLocks.fences()).singleElement().satisfies((fence) -> {
					assertThat(fence.key()).isEqualTo(key(1));
					assertThat(fence.granted()).isTrue();
					assertThat(fence.mode()).isEqualTo("ExclusiveLock");
					assertThat(fence.pid()).isNotEqualTo(holder);
				});
				assertThat(this.pgLocks.on(key(1))).singleElement().extracting(AdvisoryLock::pid).isEqualTo(holder);
				// The lock session's marker, which the check probes.
				assertThat(this.pgLocks.markers()).singleElement().extracting(AdvisoryLock::pid).isEqualTo(holder);
			});
			return null;
		});
		assertThat(rows(this.observer, "holder")).isEqualTo(1);
		assertThat(this.pgLocks.fences()).isEmpty();
	}

	@Test
	void aRequiresNewFencedWriteInsideAFencedTransactionIsRefusedRatherThanWaitForItself() {
		AdvisoryLockTemplate locks = this.fixture.locks();
		TransactionTemplate requiresNew = new TransactionTemplate(this.fixture.transactionManager());
		requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		requiresNew.setTimeout((int) HANG_SECONDS);
		locks.execute(invocation(1), (handle) -> {
			this.fixture.transaction().executeWithoutResult((status) -> {
				locks.lock(LockRequest.of(this.namespace, 1));
				// The suspended transaction holds the fence until after this one ends.
				assertThat(catchThrowable(() -> requiresNew
					.executeWithoutResult((inner) -> locks.lock(LockRequest.of(this.namespace, 1)))))
					.isInstanceOf(LockTransactionException.class)
					.hasMessageContaining("suspended");
			});
			assertThat(handle.isLost()).isFalse();
			return null;
		});
	}

	@Test
	void aFencedWriteAfterTheLockSessionWasTerminatedFailsBeforeItsBodyRunsAndBeforeAnyHeartbeat() {
		AdvisoryLockTemplate locks = this.fixture.locks();
		JdbcTemplate jdbc = this.fixture.jdbc();
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> locks.execute(invocation(1), (handle) -> {
			// A first fenced write, before the loss: the session has taken its marker.
			this.fixture.transaction().executeWithoutResult((status) -> {
				locks.lock(LockRequest.of(this.namespace, 1));
				write(jdbc, "before-loss");
			});
			terminateHolderOf(key(1));
			// No heartbeat has run, and none will while the test runs: only the fence can
			// tell.
			assertThat(handle.isLost()).isFalse();
			Throwable refused = catchThrowable(() -> this.fixture.transaction().executeWithoutResult((status) -> {
				locks.lock(LockRequest.of(this.namespace, 1));
				ran.set(true);
				write(jdbc, "old-holder");
			}));
			assertThat(refused).isInstanceOf(LockLostException.class).hasMessageContaining(this.namespace + ":[1]");
			// Reported lost at once, not at the next heartbeat.
			assertThat(handle.isLost()).isTrue();
			return null;
		}));
		assertThat(ran).isFalse();
		assertThat(rows(this.observer, "old-holder")).isZero();
		assertThat(rows(this.observer, "before-loss")).isOne();
	}

	@Test
	void theNewHoldersFirstFencedWriteWaitsForTheOldHoldersFencedTransactionAndSeesItsRows() throws Exception {
		AdvisoryLockTemplate locks = this.fixture.locks();
		JdbcTemplate jdbc = this.fixture.jdbc();
		CountDownLatch writing = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		// Its lock is lost while its fenced transaction runs: the call reports it.
		Future<Throwable> oldHolder = this.threads
			.submit(() -> catchThrowable(() -> locks.execute(invocation(1), (handle) -> {
				this.fixture.transaction().executeWithoutResult((status) -> {
					locks.lock(LockRequest.of(this.namespace, 1));
					write(jdbc, "old-holder");
					writing.countDown();
					TestThreads.await(release);
				});
				return null;
			})));
		TestThreads.await(writing);
		terminateHolderOf(key(1));
		try (AdvisoryLockTemplate newLocks = otherInstance(LONG_HEARTBEAT)) {
			Future<Integer> newHolder = this.threads
				.submit(() -> newLocks.execute(invocation(1).withTimeout(PgLocks.HANG_TIMEOUT),
						(handle) -> this.fixture.transaction().execute((status) -> {
							newLocks.lock(LockRequest.of(this.namespace, 1));
							return rows(jdbc, "old-holder");
						}))
					.value());
			// The new holder holds the key, and its first fenced write waits for the
			// fence
			// the old holder's transaction still holds.
			this.pgLocks.awaitFenceWaiters(key(1), 1);
			assertThat(newHolder).isNotDone();
			release.countDown();
			assertThat(oldHolder.get(HANG_SECONDS, TimeUnit.SECONDS)).isInstanceOf(LockLostException.class);
			assertThat(newHolder.get(HANG_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
		}
	}

	@Test
	void aWorkerThreadFencesItsTransactionsThroughTheWrappedHandle() {
		AdvisoryLockTemplate locks = this.fixture.locks();
		JdbcTemplate jdbc = this.fixture.jdbc();
		locks.execute(invocation(1), (handle) -> {
			int holder = this.pgLocks.holderPid(key(1));
			Future<Boolean> worker = this.threads.submit(handle.wrap(() -> {
				// The worker holds the lock as the call's thread does, and its
				// transaction-scoped lock for the key is a fenced write.
				assertThat(locks.isHeld(this.namespace, 1)).isTrue();
				this.fixture.transaction().executeWithoutResult((status) -> {
					locks.lock(LockRequest.of(this.namespace, 1));
					write(jdbc, "worker");
					assertThat(this.pgLocks.fences()).singleElement()
						.satisfies((fence) -> assertThat(fence.pid()).isNotEqualTo(holder));
				});
				return true;
			}));
			assertThat(worker).succeedsWithin(PgLocks.HANG_TIMEOUT).isEqualTo(true);
			return null;
		});
		assertThat(rows(this.observer, "worker")).isOne();
		assertThat(this.pgLocks.fences()).isEmpty();
	}

	@Test
	void aWorkerThreadNotWrappedWaitsForTheCallsOwnKeyAndItsBusyErrorSaysSoAndPointsAtWrap() throws Exception {
		AdvisoryLockTemplate locks = this.fixture.locks();
		LockRequest briefly = LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(200));
		locks.execute(invocation(1), (handle) -> {
			Future<?> worker = this.threads
				.submit(() -> this.fixture.transaction().executeWithoutResult((status) -> locks.lock(briefly)));
			assertThat(worker).failsWithin(PgLocks.HANG_TIMEOUT)
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(LockBusyException.class)
				.withMessageContaining("the holder is this application's own invocation-scoped call on advisory lock "
						+ this.namespace + ":[1]")
				.withMessageContaining("LockHandle.wrap(task)");
			return null;
		});
		// Held by another session, the same key's busy error says nothing of the kind.
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			assertThat(catchThrowable(
					() -> this.fixture.transaction().executeWithoutResult((status) -> locks.lock(briefly))))
				.isInstanceOf(LockBusyException.class)
				.message()
				.doesNotContain("this application's own");
		}
	}

	@Test
	void aWorkerThreadHoldsTheLocksOnlyWhileTheWrappedTaskRuns() {
		AdvisoryLockTemplate locks = this.fixture.locks();
		locks.execute(invocation(1), (handle) -> {
			Future<Boolean> outside = this.threads.submit(() -> locks.isHeld(this.namespace, 1));
			assertThat(outside).succeedsWithin(PgLocks.HANG_TIMEOUT).isEqualTo(false);
			Future<Boolean> after = this.threads.submit(() -> {
				handle.wrap(() -> {
					assertThat(locks.isHeld(this.namespace, 1)).isTrue();
				}).run();
				return locks.isHeld(this.namespace, 1);
			});
			assertThat(after).succeedsWithin(PgLocks.HANG_TIMEOUT).isEqualTo(false);
			return null;
		});
	}

	@Test
	void aWorkerThreadsFencedWriteAfterTheLockSessionWasTerminatedIsRefusedAndReportsTheLoss() {
		AdvisoryLockTemplate locks = this.fixture.locks();
		JdbcTemplate jdbc = this.fixture.jdbc();
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> locks.execute(invocation(1), (handle) -> {
			terminateHolderOf(key(1));
			Future<Throwable> worker = this.threads.submit(
					handle.wrap(() -> catchThrowable(() -> this.fixture.transaction().executeWithoutResult((status) -> {
						locks.lock(LockRequest.of(this.namespace, 1));
						ran.set(true);
						write(jdbc, "worker");
					}))));
			assertThat(worker).succeedsWithin(PgLocks.HANG_TIMEOUT).isInstanceOf(LockLostException.class);
			// The call's own thread learns it at once too.
			assertThat(handle.isLost()).isTrue();
			return null;
		}));
		assertThat(ran).isFalse();
		assertThat(rows(this.observer, "worker")).isZero();
	}

	@Test
	void aWrappedTaskWhoseCallEndedBeforeItsFencedWriteIsRefusedAsEndedNotAsALoss() throws Exception {
		AdvisoryLockTemplate locks = this.fixture.locks();
		JdbcTemplate jdbc = this.fixture.jdbc();
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch proceed = new CountDownLatch(1);
		AtomicReference<Future<Throwable>> worker = new AtomicReference<>();
		LockHandle handle = locks.execute(invocation(1), (held) -> {
			// The session's first fenced write takes its marker.
			this.fixture.transaction().executeWithoutResult((status) -> locks.lock(LockRequest.of(this.namespace, 1)));
			worker.set(this.threads.submit(held.wrap(() -> {
				entered.countDown();
				TestThreads.await(proceed);
				return catchThrowable(() -> this.fixture.transaction().executeWithoutResult((status) -> {
					locks.lock(LockRequest.of(this.namespace, 1));
					write(jdbc, "late-worker");
				}));
			})));
			// The call ends while its worker runs, without waiting for it.
			TestThreads.await(entered);
			return held;
		}).value();
		proceed.countDown();
		assertThat(worker.get()).succeedsWithin(PgLocks.HANG_TIMEOUT)
			.isInstanceOf(IllegalStateException.class)
			.satisfies((refused) -> assertThat(((Throwable) refused).getMessage()).contains("has ended"));
		assertThat(handle.isLost()).isFalse();
		assertThat(rows(this.observer, "late-worker")).isZero();
	}

	@Test
	void aTaskWrappedAndRunOnTheCallsOwnThreadLeavesTheCallHoldingItsLock() {
		AdvisoryLockTemplate locks = this.fixture.locks();
		locks.execute(invocation(1), (handle) -> {
			Runnable failing = () -> {
				throw new IllegalArgumentException("the task failed");
			};
			assertThat(catchThrowable(handle.wrap(failing)::run)).isInstanceOf(IllegalArgumentException.class);
			assertThat(locks.isHeld(this.namespace, 1)).isTrue();
			return null;
		});
		assertThat(locks.isHeld(this.namespace, 1)).isFalse();
	}

	@Test
	void aWrappedTaskThatRunsAfterTheCallEndedIsRefusedBeforeItRuns() {
		AdvisoryLockTemplate locks = this.fixture.locks();
		AtomicBoolean ran = new AtomicBoolean();
		Runnable late = locks.execute(invocation(1), (handle) -> handle.wrap(() -> ran.set(true))).value();
		assertThat(catchThrowable(late::run)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining(this.namespace + ":[1]")
			.hasMessageContaining("ended");
		assertThat(ran).isFalse();
	}

	@Test
	void theOwnershipCheckRunsOnlyOnceTheFenceIsGranted() throws Exception {
		AdvisoryLockTemplate locks = this.fixture.locks();
		AtomicBoolean ran = new AtomicBoolean();
		try (Connection fenceHolder = TestDatabase.get().dataSource().getConnection()) {
			fenceHolder.setAutoCommit(false);
			// Another transaction holds the fence of key 1: a fenced write in flight.
			takeFence(fenceHolder, key(1));
			// The refused write's LockLostException is the call's.
			Future<Throwable> fencedWrite = this.threads
				.submit(() -> catchThrowable(() -> locks.execute(invocation(1), (handle) -> {
					this.fixture.transaction().executeWithoutResult((status) -> {
						locks.lock(LockRequest.of(this.namespace, 1));
						ran.set(true);
					});
					return null;
				})));
			// The old holder's fenced write waits for the fence while its lock is still
			// held; then its lock session ends.
			this.pgLocks.awaitFenceWaiters(key(1), 1);
			terminateHolderOf(key(1));
			fenceHolder.rollback();
			// A check made before the wait would have passed.
			assertThat(fencedWrite.get(HANG_SECONDS, TimeUnit.SECONDS)).isInstanceOf(LockLostException.class);
		}
		assertThat(ran).isFalse();
	}

	@Test
	void aPausedHoldersFencedTransactionIsRolledBackByTheIdleTimeoutAndTheNewHolderProceeds() throws Exception {
		// Three heartbeats of two seconds: the old holder's fenced transaction may stay
		// idle for six, and its lock session outlives the steps before it is terminated,
		// on a loaded machine too.
		AdvisoryLockTemplate locks = this.fixture.locks();
		locks.setHeartbeat(Duration.ofSeconds(2));
		JdbcTemplate jdbc = this.fixture.jdbc();
		CountDownLatch writing = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<?> oldHolder = this.threads.submit(() -> locks.execute(invocation(1), (handle) -> {
			this.fixture.transaction().executeWithoutResult((status) -> {
				locks.lock(LockRequest.of(this.namespace, 1));
				write(jdbc, "old-holder");
				writing.countDown();
				// Paused inside its fenced transaction: it sends nothing.
				TestThreads.await(release);
			});
			return null;
		}));
		TestThreads.await(writing);
		// A paused process's heartbeats stop too: the server ends its lock session.
		terminateHolderOf(key(1));
		try (AdvisoryLockTemplate newLocks = otherInstance(LONG_HEARTBEAT)) {
			int seen = newLocks.execute(invocation(1).withTimeout(PgLocks.HANG_TIMEOUT),
					(handle) -> this.fixture.transaction().execute((status) -> {
						newLocks.lock(LockRequest.of(this.namespace, 1));
						write(jdbc, "new-holder");
						return rows(jdbc, "old-holder");
					}))
				.value();
			assertThat(seen).isZero();
		}
		release.countDown();
		Throwable oldEnd = catchThrowable(() -> oldHolder.get(HANG_SECONDS, TimeUnit.SECONDS));
		assertThat(oldEnd).as("the old holder's commit, on a connection the idle timeout ended").isNotNull();
		assertThat(rows(this.observer, "old-holder")).isZero();
		assertThat(rows(this.observer, "new-holder")).isOne();
	}

	private static void takeFence(Connection connection, long key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(
				"SELECT pg_advisory_xact_lock((?::bigint >> 32)::int4, ((?::bigint << 32) >> 32)::int4)")) {
			statement.setLong(1, key);
			statement.setLong(2, key);
			statement.executeQuery().close();
		}
	}

}
