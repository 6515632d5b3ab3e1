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

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link AdvisoryLockTester} in a JDBC application's test, as a user writes it: a lock
 * held from outside drives the busy paths of the application's locked methods, and the
 * check that no lock is left fails where one is.
 */
@SpringBootTest(classes = JdbcApplication.class)
@AutoConfigureAdvisoryLockTester
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockTesterTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		JdbcApplication.database(registry);
	}

	@Autowired
	AdvisoryLockTester locks;

	@Autowired
	JdbcApplication.SetupRequests setupRequests;

	@Autowired
	TransactionTemplate transactions;

	private final ExecutorService callers = Executors.newCachedThreadPool();

	private final String user = UUID.randomUUID().toString();

	@AfterEach
	void stopCallers() throws InterruptedException {
		this.callers.shutdownNow();
		assertThat(this.callers.awaitTermination(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void keysAreTheApplicationsKeys() {
		assertThat(this.locks.key("setup_request", this.user))
			.isEqualTo(AdvisoryLockKeys.of("setup_request", this.user));
	}

	@Test
	void aLockHeldFromOutsideRefusesATryAndSkipsASkip() {
		try (OutsideLock held = this.locks.hold("setup_request", this.user)) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.setupRequests.tryRequest(this.user));
			this.setupRequests.sendReminder(this.user);
			assertThat(this.setupRequests.remindersSent()).isZero();
		}
		assertThat(this.setupRequests.tryRequest(this.user)).isEqualTo("created");
		this.setupRequests.sendReminder(this.user);
		assertThat(this.setupRequests.remindersSent()).isOne();
		this.locks.assertNoLockLeft();
	}

	@Test
	void aBlockingCallWaitsForTheLockHeldFromOutsideUntilItIsReleased() throws Exception {
		CompletableFuture<String> call;
		try (OutsideLock held = this.locks.hold("setup_request", this.user)) {
			call = CompletableFuture.supplyAsync(() -> this.setupRequests.request(this.user), this.callers);
			held.awaitWaiters(1);
			assertThat(call).isNotDone();
		}
		assertThat(call.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("created");
	}

	@Test
	void everyPermitOfALimitHeldFromOutsideRefusesATry() {
		try (OutsideLock held = this.locks.holdPermits("export", this.user, 2)) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.setupRequests.tryExport(this.user));
		}
		try (OutsideLock held = this.locks.holdPermits("export", this.user, 1)) {
			assertThat(this.setupRequests.tryExport(this.user)).isEqualTo("exported");
		}
	}

	@Test
	void holdingALockHeldAlreadyFailsNamingTheHolder() {
		try (OutsideLock held = this.locks.hold("setup_request", this.user)) {
			assertThatIllegalStateException().isThrownBy(() -> this.locks.hold("setup_request", this.user))
				.withMessageContaining("it is held already")
				.withMessageContaining("session " + held.pid() + " holds key " + held.key());
		}
	}

	@Test
	void noLockLeftFailsWhileATransactionHoldsTheApplicationsLock() {
		this.transactions.executeWithoutResult((status) -> {
			this.setupRequests.request(this.user);
			assertThatExceptionOfType(AssertionError.class).isThrownBy(this.locks::assertNoLockLeft)
				.withMessageContaining("Locks of the application")
				.withMessageContaining("holds key " + this.locks.key("setup_request", this.user));
		});
		this.locks.assertNoLockLeft();
	}

	@Test
	void noLockLeftFailsForALockHeldFromOutsideAndNotReleasedAndReleasesIt() {
		OutsideLock forgotten = this.locks.hold("setup_request", this.user);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(this.locks::assertNoLockLeft)
			.withMessageContaining("Held from outside and not released")
			.withMessageContaining(String.valueOf(forgotten.key()));
		assertThat(this.setupRequests.tryRequest(this.user)).isEqualTo("created");
		this.locks.assertNoLockLeft();
	}

	@Test
	void noLockLeftLeavesLocksOfKeysTheApplicationDidNotAskFor() {
		this.setupRequests.request(this.user);
		try (LockHolder otherProcess = LockHolder.exclusive(TestDatabase.get().dataSource(),
				AdvisoryLockKeys.of("another_application", this.user))) {
			this.locks.assertNoLockLeft();
		}
	}

}
