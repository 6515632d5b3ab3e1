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

import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.CannotAcquireLockException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of the template's close, as the application shuts down, from a user's view: a
 * wait in progress ends on the server at once, its caller is told the application is
 * shutting down (not that another holder kept the lock), and its work never runs, even
 * once the holder lets go; and no lock is taken afterwards, in either scope.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class ShutdownTests {

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(2);

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final String namespace = "shutdown-" + UUID.randomUUID();

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private LockRequest waiting(LockScope scope) {
		return LockRequest.of(this.namespace, 1).withScope(scope).withTimeout(PgLocks.HANG_TIMEOUT);
	}

	@Test
	void closingCancelsATransactionScopedWaitOnTheServerAndItsWorkNeverRuns() throws Exception {
		AdvisoryLockTemplate locks = this.fixture.locks();
		AtomicBoolean ran = new AtomicBoolean();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			Future<?> waiter = this.threads.submit(() -> this.fixture.transaction().executeWithoutResult((status) -> {
				locks.lock(waiting(LockScope.TRANSACTION));
				ran.set(true);
			}));
			this.pgLocks.awaitWaiters(key(1), 1);
			locks.close();
			assertShuttingDown(waiter);
			// The wait ended on the server, while the holder still holds the key.
			assertThat(this.pgLocks.on(key(1))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
			holder.commit();
		}
		assertThat(ran).isFalse();
	}

	@Test
	void closingCancelsAnInvocationScopedWaitOnTheServerAndItsWorkNeverRuns() throws Exception {
		AdvisoryLockTemplate locks = this.fixture.locks();
		AtomicBoolean ran = new AtomicBoolean();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			Future<LockResult<Boolean>> waiter = this.threads
				.submit(() -> locks.execute(waiting(LockScope.INVOCATION), (handle) -> ran.getAndSet(true)));
			this.pgLocks.awaitWaiters(key(1), 1);
			locks.close();
			assertShuttingDown(waiter);
			assertThat(this.pgLocks.on(key(1))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
			holder.commit();
		}
		assertThat(ran).isFalse();
	}

	@Test
	void noLockIsTakenAfterCloseInEitherScope() throws Exception {
		AdvisoryLockTemplate locks = this.fixture.locks();
		locks.close();
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> this.fixture.transaction().executeWithoutResult((status) -> {
				locks.lock(this.namespace, 1);
				ran.set(true);
			}))
			.withMessageContaining("the application is shutting down");
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> locks.execute(waiting(LockScope.INVOCATION), (handle) -> ran.getAndSet(true)))
			.withMessageContaining("the application is shutting down");
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> locks.acquire(waiting(LockScope.INVOCATION)))
			.withMessageContaining("the application is shutting down");
		assertThat(ran).isFalse();
		assertThat(this.pgLocks.on(key(1))).isEmpty();
	}

	private static void assertShuttingDown(Future<?> waiter) {
		assertThat(waiter).failsWithin(PgLocks.HANG_TIMEOUT)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(CannotAcquireLockException.class)
			.isNotInstanceOf(LockBusyException.class)
			.withMessageContaining("the application is shutting down");
	}

}
