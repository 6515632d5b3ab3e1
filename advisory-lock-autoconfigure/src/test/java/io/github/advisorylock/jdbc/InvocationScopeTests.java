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
package io.github.advisorylock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.pglocks.DirectConnectionsRegistry;
import io.github.advisorylock.pglocks.PgLocksHolderDiagnosis;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for invocation-scoped locks and {@link WaitMode#SKIP} through
 * {@link AdvisoryLockTemplate#execute}, against real PostgreSQL from several connections
 * at once.
 */
@ExtendWith({ NoAdvisoryLocksLeft.class, OutputCaptureExtension.class })
class InvocationScopeTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/**
	 * Long enough that a loaded machine never misses three in a row (the dead-man switch
	 * would end a held lock), short enough to find a terminated session lost soon.
	 */
	private static final Duration HEARTBEAT = Duration.ofSeconds(5);

	/**
	 * Generous: a diagnosis that must name the holder must not time out on a loaded
	 * machine.
	 */
	private static final Duration DIAGNOSIS_TIMEOUT = PgLocks.HANG_TIMEOUT;

	/**
	 * The application's pool of two: the work's transactions run here, never the locks.
	 */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(2).withLockSettings((locks) -> configure(locks, 4));

	private final DataSource pool = this.fixture.dataSource();

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final JdbcTemplate observer = this.fixture.observer();

	private final TransactionTemplate transaction = this.fixture.transaction();

	private final JdbcTemplate jdbc = this.fixture.jdbc();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "job-" + UUID.randomUUID();

	private AdvisoryLockTemplate template(int maxConnections) {
		AdvisoryLockTemplate template = new AdvisoryLockTemplate(this.pool);
		configure(template, maxConnections);
		return template;
	}

	private static void configure(AdvisoryLockTemplate template, int maxConnections) {
		template.setHeartbeat(HEARTBEAT);
		template.setMaxInvocationConnections(maxConnections);
		template.setHolderDiagnosis(new PgLocksHolderDiagnosis(new DirectConnectionsRegistry(DIAGNOSIS_TIMEOUT)));
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private LockRequest invocation(Object... keys) {
		return LockRequest.of(this.namespace, keys).withScope(LockScope.INVOCATION);
	}

	private int holderPid(long key) {
		return this.pgLocks.holderPid(key);
	}

	@Test
	void lockSessionIsReadOnlyReadCommittedWithoutXidOrSnapshotAndNamesItself() {
		// No heartbeat while the session's state is read: it would show it active.
		this.locks.setHeartbeat(Duration.ofHours(1));
		this.locks.setInstanceName("instance-7");
		this.locks.execute(invocation(1), (handle) -> {
			Map<String, Object> session = this.observer.queryForMap("SELECT state, application_name, "
					+ "backend_xid::text AS xid, backend_xmin::text AS xmin, query FROM pg_stat_activity WHERE pid = ?",
					holderPid(key(1)));
			assertThat(session).containsEntry("state", "idle in transaction")
				// PostgreSQL keeps the first 63 bytes of an application_name.
				.containsEntry("application_name",
						("advisory-lock " + this.namespace + " @ instance-7").substring(0, 63))
				.containsEntry("xid", null)
				.containsEntry("xmin", null);
			return null;
		});
	}

	@Test
	void blockTimesOutNamingTheHolder() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			AtomicBoolean ran = new AtomicBoolean();
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.locks.execute(invocation(1).withTimeout(Duration.ofMillis(200)),
						(handle) -> ran.getAndSet(true)))
				.satisfies((ex) -> {
					assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(200));
					assertThat(ex.getHolders()).singleElement()
						.satisfies((info) -> assertThat(info.pid()).isEqualTo(holder.pid()));
				});
			assertThat(ran).isFalse();
			holder.rollback();
		}
	}

	@Test
	void tryThrowsBusyNamingTheHolderAndDoesNotRunTheWork() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			AtomicBoolean ran = new AtomicBoolean();
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(
					() -> this.locks.execute(invocation(1).withWaitMode(WaitMode.TRY), (handle) -> ran.getAndSet(true)))
				.satisfies((ex) -> assertThat(ex.getHolders()).singleElement()
					.satisfies((info) -> assertThat(info.pid()).isEqualTo(holder.pid())));
			assertThat(ran).isFalse();
			holder.rollback();
		}
	}

	@Test
	void skipInTransactionScopeGivesBackTheKeysTakenBeforeTheHeldOneAndKeepsTheTransaction() {
		List<Long> ascending = List.of(key("a"), key("b"), key("c")).stream().sorted().toList();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), ascending.get(1))) {
			this.transaction.executeWithoutResult((status) -> {
				LockResult<Boolean> result = this.locks.execute(
						LockRequest.of(this.namespace, "a", "b", "c").withWaitMode(WaitMode.SKIP), (handle) -> true);
				assertThat(result.executed()).isFalse();
				assertThat(this.pgLocks.all())
					.containsExactly(new AdvisoryLock(holder.pid(), ascending.get(1), "ExclusiveLock", true));
				// The transaction goes on: the savepoint's rollback released only the
				// keys.
				assertThat(this.jdbc.queryForObject("SELECT 1", Integer.class)).isOne();
			});
			holder.rollback();
		}
		this.transaction.executeWithoutResult((status) -> assertThat(this.locks
			.execute(LockRequest.of(this.namespace, "a", "b", "c").withWaitMode(WaitMode.SKIP), (handle) -> true)
			.value()).isTrue());
	}

	@Test
	void refusesToStartInsideATransactionThatBeganBeforeIt() {
		AtomicBoolean ran = new AtomicBoolean();
		this.transaction.executeWithoutResult((status) -> assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.locks.execute(invocation(1), (handle) -> ran.getAndSet(true)))
			.withMessageContaining("called inside a transaction that began before it")
			.withMessageContaining("before that transaction commits"));
		assertThat(ran).isFalse();
	}

	@Test
	void nestedCallsForAKeyTheEnclosingCallHoldsDoNotWaitInEitherScope() {
		this.locks.execute(invocation(1).withWaitMode(WaitMode.TRY), (outer) -> {
			int holder = holderPid(key(1));
			// An invocation-scoped call inside the enclosing one, and a
			// transaction-scoped one inside a transaction.
			assertThat(this.locks.execute(invocation(1).withWaitMode(WaitMode.TRY), (inner) -> "inner").value())
				.isEqualTo("inner");
			this.transaction.executeWithoutResult((status) -> {
				assertThat(this.locks.tryLock(this.namespace, 1)).isTrue();
				this.locks.lock(LockRequest.of(this.namespace, 1, 2));
				assertThat(this.pgLocks.on(key(1))).singleElement()
					.satisfies((lock) -> assertThat(lock.pid()).isEqualTo(holder));
				assertThat(this.pgLocks.on(key(2))).singleElement()
					.satisfies((lock) -> assertThat(lock.pid()).isNotEqualTo(holder));
			});
			return null;
		});
	}

	@Test
	void nestedExclusiveCallForAKeyTheEnclosingCallHoldsSharedFailsFast() {
		this.locks.execute(invocation(1).withMode(LockMode.SHARED), (outer) -> {
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> this.locks.execute(invocation(1).withWaitMode(WaitMode.SKIP), (inner) -> "inner"))
				.withMessageContaining("held SHARED by an enclosing invocation-scoped call on this thread");
			assertThat(this.locks.execute(invocation(1).withMode(LockMode.SHARED), (inner) -> "shared").value())
				.isEqualTo("shared");
			return null;
		});
	}

	@Test
	void reachingTheConnectionBoundIsAClearErrorAndTheWorkDoesNotRun() throws Exception {
		try (AdvisoryLockTemplate bounded = template(1)) {
			CountDownLatch release = new CountDownLatch(1);
			CountDownLatch holding = new CountDownLatch(1);
			Future<?> first = this.threads.submit(() -> bounded.execute(invocation(1), (handle) -> {
				holding.countDown();
				TestThreads.await(release);
				return null;
			}));
			assertThat(holding.await(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
			AtomicBoolean ran = new AtomicBoolean();
			assertThatExceptionOfType(CannotGetJdbcConnectionException.class)
				.isThrownBy(() -> bounded.execute(invocation(2), (handle) -> ran.getAndSet(true)))
				.withMessageContaining("advisory-lock.invocation.max-connections");
			assertThat(ran).isFalse();
			assertThat(this.pgLocks.on(key(2))).isEmpty();
			release.countDown();
			first.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
	}

	@Test
	void workThatNeedsEveryPoolConnectionNeverDeadlocksAgainstLockConnections() throws Exception {
		// Two jobs at once on a pool of two, each running a transaction while holding its
		// lock: had the locks taken pool connections, each job would wait for the
		// other's.
		CountDownLatch bothHolding = new CountDownLatch(2);
		List<Future<LockResult<Integer>>> jobs = List.of("a", "b")
			.stream()
			.map((job) -> this.threads.submit(() -> this.locks.execute(invocation(job), (handle) -> {
				bothHolding.countDown();
				TestThreads.await(bothHolding);
				return this.transaction.execute((status) -> {
					this.jdbc.execute("SELECT 1");
					return new JdbcTemplate(this.pool).queryForObject("SELECT 2", Integer.class);
				});
			})))
			.toList();
		for (Future<LockResult<Integer>> job : jobs) {
			assertThat(job.get(HANG_SECONDS, TimeUnit.SECONDS).value()).isEqualTo(2);
		}
	}

	@Test
	void terminatedLockSessionIsReportedLostAndTheCallEndsWithTheLossOnceTheWorkHasReturned() {
		AtomicReference<LockHandle> seen = new AtomicReference<>();
		AtomicBoolean returned = new AtomicBoolean();
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.locks.execute(invocation(1), (handle) -> {
				seen.set(handle);
				assertThat(handle.isLost()).isFalse();
				this.pgLocks.terminateHolderOf(key(1));
				await().atMost(PgLocks.HANG_TIMEOUT).until(handle::isLost);
				assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::checkHeld)
					.withMessageContaining(this.namespace + ":[1] was lost");
				assertThatExceptionOfType(LockLostException.class).isThrownBy(this.locks::checkHeld);
				returned.set(true);
				return "done";
			}))
			.withMessageContaining(this.namespace + ":[1] was lost");
		assertThat(returned).isTrue();
		assertThat(seen.get().isLost()).isTrue();
		// The next call gets a healthy connection, not the dead one back from the pool.
		assertThat(this.locks.execute(invocation(1), (handle) -> "again").value()).isEqualTo("again");
	}

	@Test
	void transactionTimeoutIsAWarningAtAcquisitionAndEndsTheLockAsALoss(CapturedOutput output) throws Exception {
		assumeTrue(TestDatabase.get().serverMajorVersion() >= 17, "transaction_timeout is PostgreSQL 17's");
		String url = TestDatabase.get().createDatabase("invocation_transaction_timeout");
		this.observer.execute("ALTER DATABASE invocation_transaction_timeout SET transaction_timeout = '1s'");
		try (HikariDataSource pool = TestDatabase.get().newDataSource(url, 2);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool)) {
			// A dead-man switch well past the 1s transaction_timeout, on a loaded machine
			// too: the loss must be the timeout's.
			locks.setHeartbeat(HEARTBEAT);
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> locks.execute(invocation(1), (handle) -> {
					assertThat(output).contains("Invocation-scoped advisory lock '" + this.namespace + "' runs with "
							+ "transaction_timeout = 1s");
					await().atMost(PgLocks.HANG_TIMEOUT).until(handle::isLost);
					assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::checkHeld)
						.withMessageMatching("(?s).*transaction[ _]timeout.*");
					// Counted from before the lock was sent, the loss may come before the
					// server ends the transaction: wait for that too.
					this.pgLocks.await("the lock's transaction ended by the server",
							(held) -> held.stream().noneMatch((lock) -> lock.key() == key(1)));
					return null;
				}));
		}
	}

	@Test
	void closingTheTemplateReportsTheLocksStillHeldAsLostAndRefusesNewCalls() {
		LockHandle[] seen = new LockHandle[1];
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.locks.execute(invocation(1), (handle) -> {
				seen[0] = handle;
				closeQuietly(this.locks);
				assertThat(handle.isLost()).isTrue();
				return "done";
			}))
			.withMessageContaining("the application is shutting down");
		assertThat(seen[0].isLost()).isTrue();
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> this.locks.execute(invocation(2), (handle) -> null))
			.withMessageContaining("the application is shutting down");
		// Closing the pool aborts the lock's connection; the server ends that session,
		// and the lock with it, once it reads the closed socket, a moment later.
		this.pgLocks.await("the lock released after the template closed its connection",
				(locks) -> locks.stream().noneMatch((lock) -> lock.key() == key(1)));
	}

	@Test
	void aReleasedLockIsNeitherHeldNorLost() {
		LockHandle handle = this.locks.execute(invocation(1), (held) -> held).value();
		assertThat(handle.isLost()).isFalse();
		handle.checkHeld();
		assertThat(handle).hasToString("InvocationLock[" + this.namespace + ":[1], EXCLUSIVE, released]");
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void holderWhoseHeartbeatsStalledPastTheDeadManSwitchLearnsItAtItsFirstCheckWithoutWaitingForAHeartbeat() {
		// A dead-man switch of 6s: the test waits it out once, and the last call must
		// not reach it on a loaded machine.
		this.locks.setHeartbeat(Duration.ofSeconds(2));
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.locks.execute(invocation(1), (handle) -> {
				int pid = holderPid(key(1));
				// The heartbeat runs under the session's connection lock: holding it
				// stalls
				// the heartbeats, as a paused process would.
				ReentrantLock statements = ((JdbcLockSession) handle).connectionLock();
				statements.lock();
				try {
					await().atMost(PgLocks.HANG_TIMEOUT)
						.until(() -> this.observer.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE pid = ?",
								Integer.class, pid) == 0);
					assertThat(handle.isLost()).isTrue();
					assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::checkHeld)
						.withMessageContaining("no heartbeat confirmed for");
				}
				finally {
					statements.unlock();
				}
				return null;
			}));
		assertThat(this.locks.execute(invocation(1), (handle) -> handle.isLost()).value()).isFalse();
	}

	@Test
	void aNamespaceWithSemicolonsQuotesAndCommentMarkersCannotSplitTheOpeningStatements() {
		String hostile = "job; SELECT 'x\"; -- */ /* $$ " + this.namespace;
		long key = AdvisoryLockKeys.of(hostile, 1);
		assertThat(this.locks.execute(LockRequest.of(hostile, 1).withScope(LockScope.INVOCATION), (handle) -> {
			assertThat(this.pgLocks.on(key)).singleElement().satisfies((lock) -> assertThat(lock.granted()).isTrue());
			return "held";
		}).value()).isEqualTo("held");
	}

	@Test
	void aNamespaceWithANulCharacterIsRefusedAtTheCallInEitherScope() {
		String nul = this.namespace + "\u0000";
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> this.locks.execute(LockRequest.of(nul, 1).withScope(LockScope.INVOCATION), (handle) -> "ran"))
			.withMessageContaining("namespace holds a NUL character");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.locks.lock(nul, 1)))
			.withMessageContaining("namespace holds a NUL character");
	}

	@Test
	void keyValuesAreEscapedAndCutInMessagesAndLogLinesAndKeptWholeInTheExceptions(CapturedOutput output) {
		// A line of its own would start with the forged text; the logging pattern's own
		// lines start otherwise.
		String forged = "1970-01-01 00:00:00 ERROR forged line";
		String forging = "1\n" + forged;
		String huge = "x".repeat(5_000_000);
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(forging))) {
			LockBusyException busy = catchThrowableOfType(LockBusyException.class,
					() -> this.locks.execute(invocation(forging, huge).withWaitMode(WaitMode.TRY), (handle) -> "ran"));
			assertThat(busy.getMessage()).doesNotContain("\n").hasSizeLessThan(2_000).contains("1\\n" + forged);
			assertThat(busy.getKeyValues()).containsExactlyInAnyOrder(forging, huge);
			holder.rollback();
		}
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.locks.execute(invocation(forging, huge), (handle) -> {
				this.pgLocks.terminateHolderOf(key(forging));
				await().atMost(PgLocks.HANG_TIMEOUT).until(handle::isLost);
				LockLostException lost = catchThrowableOfType(LockLostException.class, handle::checkHeld);
				assertThat(lost.getMessage()).doesNotContain("\n").hasSizeLessThan(2_000);
				assertThat(lost.getKeyValues()).containsExactlyInAnyOrder(forging, huge);
				return null;
			}));
		assertThat(output.getAll().lines().filter((line) -> line.contains("forged line")))
			.anySatisfy((line) -> assertThat(line).contains("was lost while its work runs"))
			.allSatisfy((line) -> assertThat(line).doesNotStartWith(forged).hasSizeLessThan(2_000));
	}

	@Test
	void workFailureReachesTheCallerAfterTheLockIsReleased() {
		IllegalStateException failure = new IllegalStateException("work failed");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.locks.execute(invocation(1), (handle) -> {
				throw failure;
			}))
			.isSameAs(failure);
		assertThat(this.pgLocks.on(key(1))).isEmpty();
	}

	@Test
	void aFreeLockTakesOneRoundTripOnAWarmConnection() {
		this.locks.execute(invocation(1), (handle) -> null);
		try (RoundTripCounter counter = new RoundTripCounter()) {
			this.locks.execute(invocation(1), (handle) -> {
				assertThat(counter.roundTrips()).as("round trips to open the transaction and lock").isOne();
				return null;
			});
		}
	}

	@Test
	void skippedResultHasNoValue() {
		assertThat(LockResult.skipped().executed()).isFalse();
		assertThatExceptionOfType(java.util.NoSuchElementException.class)
			.isThrownBy(() -> LockResult.skipped().value());
		assertThat(Optional.ofNullable(LockResult.executed(null).value())).isEmpty();
	}

}
