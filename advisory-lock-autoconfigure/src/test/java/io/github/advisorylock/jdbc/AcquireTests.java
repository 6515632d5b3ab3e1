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

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.HeldLock;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link AdvisoryLockOperations#acquire}, from a user's view: an
 * invocation-scoped lock held beyond one call until it is released, from any thread,
 * bound to none, unless a task is wrapped in it.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AcquireTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/**
	 * Long enough that a loaded machine never misses three in a row (the dead-man switch
	 * would end a held lock), short enough to find a terminated session lost soon.
	 */
	private static final Duration HEARTBEAT = Duration.ofSeconds(5);

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(2)
		.withLockSettings((locks) -> locks.setHeartbeat(HEARTBEAT));

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final TransactionTemplate transaction = this.fixture.transaction();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "acquire-" + UUID.randomUUID();

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private LockRequest invocation(Object... keys) {
		return LockRequest.of(this.namespace, keys).withScope(LockScope.INVOCATION);
	}

	private boolean held(long key) {
		return this.pgLocks.on(key).stream().anyMatch(PgLocks.AdvisoryLock::granted);
	}

	@Test
	void lockIsHeldAfterTheCallReturnsUntilReleased() {
		HeldLock lock = this.locks.acquire(invocation(1)).orElseThrow();
		try {
			assertThat(held(key(1))).isTrue();
			assertThat(this.locks.acquire(invocation(1).withWaitMode(WaitMode.SKIP))).isEmpty();
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.locks.acquire(invocation(1).withWaitMode(WaitMode.TRY)));
			lock.checkHeld();
			assertThat(lock.isLost()).isFalse();
		}
		finally {
			lock.release();
		}
		assertThat(held(key(1))).isFalse();
		// Released once: a second release, or a close, does nothing.
		lock.release();
		lock.close();
		try (HeldLock again = this.locks.acquire(invocation(1).withWaitMode(WaitMode.SKIP)).orElseThrow()) {
			assertThat(held(key(1))).isTrue();
		}
		assertThat(held(key(1))).isFalse();
	}

	@Test
	void anotherThreadReleasesTheLock() throws Exception {
		HeldLock lock = this.locks.acquire(invocation(1)).orElseThrow();
		this.threads.submit(lock::release).get(HANG_SECONDS, TimeUnit.SECONDS);
		assertThat(held(key(1))).isFalse();
	}

	@Test
	void lockBelongsToNoThread() {
		try (HeldLock lock = this.locks.acquire(invocation(1)).orElseThrow()) {
			assertThat(this.locks.isHeld(this.namespace, 1)).isFalse();
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(this.locks::currentHandle);
			// Not re-entrant: the same thread asking again is a second claimant.
			assertThat(this.locks.acquire(invocation(1).withWaitMode(WaitMode.SKIP))).isEmpty();
			assertThat(this.locks.execute(invocation(1).withWaitMode(WaitMode.SKIP), (handle) -> "ran").executed())
				.isFalse();
		}
	}

	@Test
	void aTaskWrappedInTheLockRunsAsItsHoldersThreadAndFencesItsTransactions() throws Exception {
		try (HeldLock lock = this.locks.acquire(invocation(1)).orElseThrow()) {
			boolean fenced = lock.wrap(() -> {
				assertThat(this.locks.isHeld(this.namespace, 1)).isTrue();
				return this.transaction.execute((status) -> {
					this.locks.lock(LockRequest.of(this.namespace, 1));
					return this.pgLocks.fences().stream().anyMatch((fence) -> fence.key() == key(1));
				});
			}).call();
			assertThat(fenced).isTrue();
			assertThat(this.locks.isHeld(this.namespace, 1)).isFalse();
		}
	}

	@Test
	void lockTakenInsideATransactionOutlivesIt() {
		HeldLock lock = this.transaction.execute((status) -> this.locks.acquire(invocation(1)).orElseThrow());
		try {
			assertThat(held(key(1))).isTrue();
		}
		finally {
			lock.release();
		}
	}

	@Test
	void lostLockIsReportedAndItsReleaseDoesNotThrow() {
		HeldLock lock = this.locks.acquire(invocation(1)).orElseThrow();
		// Waits until the backend has exited: until then it still holds the key.
		this.pgLocks.terminateHolderOf(key(1));
		await().atMost(PgLocks.HANG_TIMEOUT).until(lock::isLost);
		lock.release();
		assertThat(held(key(1))).isFalse();
		// Its connection went back to the pool, which lends a working one.
		try (HeldLock again = this.locks.acquire(invocation(1)).orElseThrow()) {
			assertThat(again.isLost()).isFalse();
		}
	}

	@Test
	void transactionScopedRequestIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.acquire(LockRequest.of(this.namespace, 1)))
			.withMessageContaining("withScope(LockScope.INVOCATION)");
	}

	@Test
	void otherImplementationsSayTheyDoNotHoldLocksBeyondACall() {
		AdvisoryLockOperations other = (AdvisoryLockOperations) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { AdvisoryLockOperations.class },
				(proxy, method, args) -> InvocationHandler.invokeDefault(proxy, method, args));
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> other.acquire(invocation(1)));
	}

}
