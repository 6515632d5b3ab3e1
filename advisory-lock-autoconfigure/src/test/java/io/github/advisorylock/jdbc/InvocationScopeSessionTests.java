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

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.testsupport.FreezableRelay;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Tests of what an invocation-scoped lock's session promises while the work runs: no xid
 * and no snapshot between its statements, whether the lock was free or waited for, and a
 * loss reported by the heartbeat that finds the session gone, or the server silent, not
 * later by the dead-man switch.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class InvocationScopeSessionTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/**
	 * No heartbeat while a test reads the session's state (it would show {@code active}),
	 * nor a dead-man switch that a loaded machine could reach.
	 */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(2)
		.withLockSettings((locks) -> locks.setHeartbeat(Duration.ofHours(1)));

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final JdbcTemplate observer = this.fixture.observer();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "session-" + UUID.randomUUID();

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private LockRequest invocation(Object... keys) {
		return LockRequest.of(this.namespace, keys).withScope(LockScope.INVOCATION);
	}

	/**
	 * Read the lock session's transaction id and snapshot horizon, as VACUUM sees them.
	 */
	private Map<String, Object> lockSession(long key) {
		return this.observer.queryForMap("SELECT state, backend_xid::text AS xid, backend_xmin::text AS xmin "
				+ "FROM pg_stat_activity WHERE pid = ?", this.pgLocks.holderPid(key));
	}

	@Test
	void lockSessionHoldsNoXidOrSnapshotWhileTheWorkRunsAfterAFreeAcquisition() {
		Map<String, Object> session = this.locks.execute(invocation(1), (handle) -> lockSession(key(1))).value();
		assertThat(session).containsEntry("state", "idle in transaction")
			.containsEntry("xid", null)
			.containsEntry("xmin", null);
	}

	@Test
	void lockSessionHoldsNoXidOrSnapshotWhileTheWorkRunsAfterAWait() throws Exception {
		Future<Map<String, Object>> job;
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			job = this.threads.submit(() -> this.locks
				.execute(invocation(1).withTimeout(PgLocks.HANG_TIMEOUT), (handle) -> lockSession(key(1)))
				.value());
			this.pgLocks.awaitWaiters(key(1), 1);
			holder.rollback();
		}
		assertThat(job.get(HANG_SECONDS, TimeUnit.SECONDS)).containsEntry("state", "idle in transaction")
			.containsEntry("xid", null)
			.containsEntry("xmin", null);
	}

	@Test
	void failedHeartbeatReportsTheLossItselfWithoutWaitingForTheDeadManSwitch() throws Exception {
		// Three heartbeats of silence make the dead-man switch: far more than the one
		// that fails here needs.
		this.locks.setHeartbeat(Duration.ofSeconds(5));
		AtomicReference<@Nullable Throwable> checked = new AtomicReference<>();
		// The call reports the loss too, once the work has ended.
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.locks.execute(invocation(1), (handle) -> {
				this.pgLocks.terminateHolderOf(key(1));
				await().atMost(PgLocks.HANG_TIMEOUT).until(handle::isLost);
				checked.set(catchThrowable(handle::checkHeld));
				return null;
			}));
		// The heartbeat's own failure, not the dead-man switch's "no heartbeat
		// confirmed".
		assertThat(checked.get()).isInstanceOf(LockLostException.class).hasCauseInstanceOf(SQLException.class);
	}

	@Test
	void heartbeatOnALinkThatStoppedAnsweringEndsAtTheNetworkTimeoutAndReportsTheLoss() throws Exception {
		try (FreezableRelay relay = new FreezableRelay(TestDatabase.get().url());
				HikariDataSource pool = TestDatabase.get().newDataSource(relay.url(), 2);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool)) {
			locks.setHeartbeat(Duration.ofMillis(200));
			CountDownLatch lost = new CountDownLatch(1);
			locks.setListeners(List.of((namespace, scope, mode, waitMode, keys, values) -> new Acquisition() {

				@Override
				public void finished(Outcome outcome, @Nullable Throwable error) {
				}

				@Override
				public void released(boolean wasLost) {
					if (wasLost) {
						lost.countDown();
					}
				}

			}));
			// The acquisition's bound, which covers a wait, is longer than the hang
			// bound: only the heartbeat's own bound ends it in time.
			LockRequest request = invocation(1).withTimeout(PgLocks.HANG_TIMEOUT.multipliedBy(2));
			Future<Throwable> job = this.threads.submit(() -> catchThrowable(() -> locks.execute(request, (handle) -> {
				relay.freeze();
				// Nothing here asks isLost(), which would apply the dead-man switch: the
				// heartbeat must report it.
				TestThreads.await(lost);
				return null;
			})));
			// The heartbeat's failure, which the call reports once its work has ended.
			assertThat(job.get(2 * HANG_SECONDS, TimeUnit.SECONDS)).isInstanceOf(LockLostException.class)
				.hasCauseInstanceOf(SQLException.class);
			// The server ends the silent session at its idle timeout; closing the relay
			// first would leave its backend to exit after the test.
			this.pgLocks.await("the frozen lock session ended by the server",
					(held) -> held.stream().noneMatch((lock) -> lock.key() == key(1)));
		}
	}

}
