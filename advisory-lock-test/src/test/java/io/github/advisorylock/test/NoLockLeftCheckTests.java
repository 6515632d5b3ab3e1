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
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The check that follows each test method of a class annotated
 * {@link AutoConfigureAdvisoryLockTester @AutoConfigureAdvisoryLockTester}, seen as a
 * user sees it: the test classes below run through JUnit's own engine, and their outcome
 * is asserted.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class NoLockLeftCheckTests {

	/**
	 * Why the test classes below are disabled: they are a user's tests, some failing on
	 * purpose, which only this class runs, with the condition switched off; a run that
	 * selects them by name skips them.
	 */
	static final String RUN_BY_THE_ENGINE = "run by NoLockLeftCheckTests through JUnit's engine";

	@Test
	void aTestThatLeavesTheApplicationsLockHeldFails() throws InterruptedException {
		try {
			Throwable failure = onlyFailure(LeavesTheApplicationsLockHeld.class);
			assertThat(failure).isInstanceOf(AssertionError.class)
				.hasMessageContaining("Advisory locks outlived the test")
				.hasMessageContaining("Locks of the application");
		}
		finally {
			LeavesTheApplicationsLockHeld.end.countDown();
			Thread holder = LeavesTheApplicationsLockHeld.holder;
			if (holder != null) {
				holder.join(PgLocks.HANG_TIMEOUT.toMillis());
			}
		}
	}

	@Test
	void aTestThatLeavesALockHeldFromOutsideFailsAndTheLockIsReleased() {
		Throwable failure = onlyFailure(LeavesALockHeldFromOutside.class);
		assertThat(failure).hasMessageContaining("Held from outside and not released (now released)");
	}

	@Test
	void aTestManagedTransactionHasRolledBackBeforeTheCheck() {
		assertThat(failures(LocksInATestManagedTransaction.class)).isEmpty();
	}

	@Test
	void theCheckCanBeSwitchedOff() {
		try {
			assertThat(failures(ChecksNothing.class)).isEmpty();
			assertThat(ChecksNothing.left).isNotNull();
		}
		finally {
			if (ChecksNothing.left != null) {
				ChecksNothing.left.release();
			}
		}
	}

	private static Throwable onlyFailure(Class<?> testClass) {
		List<Throwable> failures = failures(testClass);
		assertThat(failures).as("failures of " + testClass.getSimpleName()).hasSize(1);
		return failures.get(0);
	}

	private static List<Throwable> failures(Class<?> testClass) {
		List<Event> finished = EngineTestKit.engine("junit-jupiter")
			.configurationParameter("junit.jupiter.conditions.deactivate", "org.junit.*DisabledCondition")
			.selectors(selectClass(testClass))
			.execute()
			.testEvents()
			.finished()
			.list();
		assertThat(finished).as("tests of " + testClass.getSimpleName() + " run").hasSize(1);
		return finished.stream()
			.map((event) -> event.getRequiredPayload(TestExecutionResult.class))
			.filter((result) -> result.getStatus() != TestExecutionResult.Status.SUCCESSFUL)
			.map((result) -> result.getThrowable().orElseThrow())
			.toList();
	}

	@SpringBootTest(classes = JdbcApplication.class)
	abstract static class ApplicationTest {

		@DynamicPropertySource
		static void database(DynamicPropertyRegistry registry) {
			JdbcApplication.database(registry);
		}

		@Autowired
		AdvisoryLockTester locks;

		@Autowired
		JdbcApplication.SetupRequests setupRequests;

		final String user = UUID.randomUUID().toString();

	}

	@Disabled(RUN_BY_THE_ENGINE)
	@AutoConfigureAdvisoryLockTester
	static class LeavesTheApplicationsLockHeld extends ApplicationTest {

		static final CountDownLatch end = new CountDownLatch(1);

		static volatile Thread holder;

		@Autowired
		TransactionTemplate transactions;

		@Test
		void leavesItsTransactionOpen() {
			CountDownLatch locked = new CountDownLatch(1);
			holder = new Thread(() -> this.transactions.executeWithoutResult((status) -> {
				this.setupRequests.request(this.user);
				locked.countDown();
				TestThreads.await(end);
			}));
			holder.start();
			TestThreads.await(locked);
		}

	}

	@Disabled(RUN_BY_THE_ENGINE)
	@AutoConfigureAdvisoryLockTester
	static class LeavesALockHeldFromOutside extends ApplicationTest {

		@Test
		void holdsAndForgets() {
			this.locks.hold("setup_request", this.user);
		}

	}

	@Disabled(RUN_BY_THE_ENGINE)
	@AutoConfigureAdvisoryLockTester
	static class LocksInATestManagedTransaction extends ApplicationTest {

		@Test
		@Transactional
		void callsTheLockedMethodInTheTestsTransaction() {
			assertThat(this.setupRequests.request(this.user)).isEqualTo("created");
		}

	}

	@Disabled(RUN_BY_THE_ENGINE)
	@AutoConfigureAdvisoryLockTester(checkNoLockLeft = false)
	static class ChecksNothing extends ApplicationTest {

		static volatile OutsideLock left;

		@Test
		void holdsAndForgets() {
			left = this.locks.hold("setup_request", this.user);
		}

	}

}
