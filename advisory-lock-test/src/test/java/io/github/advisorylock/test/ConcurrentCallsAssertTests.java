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

import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link ConcurrentCallsAssert} in a JDBC application's test, as a user writes it: it
 * passes where the lock serializes the calls, and fails, saying what it saw, where they
 * did not wait or ran at once.
 */
@SpringBootTest(classes = JdbcApplication.class)
@AutoConfigureAdvisoryLockTester
@ExtendWith(NoAdvisoryLocksLeft.class)
class ConcurrentCallsAssertTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		JdbcApplication.database(registry);
	}

	@Autowired
	AdvisoryLockTester locks;

	@Autowired
	JdbcApplication.SetupRequests setupRequests;

	private final String user = UUID.randomUUID().toString();

	@Test
	void callsOfALockedMethodAreSerialized() {
		ConcurrentCalls calls = this.locks.concurrentCalls(4, () -> this.setupRequests.request(this.user));
		assertThat(calls).areSerializedBy("setup_request", this.user);
		assertThat(calls.results()).containsExactly("created", "created", "created", "created");
	}

	@Test
	void callsOfALimitedMethodRunAtMostPermitsAtATime() {
		ConcurrentCalls calls = this.locks.concurrentCalls(4, () -> this.setupRequests.export(this.user));
		assertThat(calls).areLimitedBy("export", this.user, 2);
	}

	@Test
	void callsOfAnUnlockedMethodDidNotWait() {
		ConcurrentCalls calls = this.locks.concurrentCalls(3, () -> this.setupRequests.requestUnlocked(this.user));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(calls).areSerializedBy("setup_request", this.user))
			.withMessageContaining("The calls did not wait on the lock of namespace 'setup_request'")
			.withMessageContaining(" ended (returned created)");
	}

	@Test
	void callsThatTryTheLockDidNotWait() {
		ConcurrentCalls calls = this.locks.concurrentCalls(3, () -> this.setupRequests.tryRequest(this.user));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(calls).areSerializedBy("setup_request", this.user))
			.withMessageContaining("threw " + LockBusyException.class.getName());
	}

	@Test
	void callsLockingAnotherKeyDidNotWait() {
		ConcurrentCalls calls = this.locks.concurrentCalls(3, () -> this.setupRequests.request(this.user + "-other"));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(calls).areSerializedBy("setup_request", this.user))
			.withMessageContaining("The calls did not wait on the lock of namespace 'setup_request'")
			.withMessageContaining("entered " + JdbcApplication.SetupRequests.class.getName() + ".request");
	}

	@Test
	void callsThatWaitForASharedLockAreNotSerialized() {
		ConcurrentCalls calls = this.locks.concurrentCalls(3, () -> this.setupRequests.read(this.user));
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertThat(calls).areSerializedBy("setup_request", this.user))
			.withMessageContaining("in shared mode")
			.withMessageContaining("it does not serialize them");
	}

	@Test
	@Transactional
	void aTestManagedTransactionIsRefusedSayingHowToSwitchItOff() {
		ConcurrentCalls calls = this.locks.concurrentCalls(2, () -> this.setupRequests.request(this.user));
		assertThatIllegalStateException()
			.isThrownBy(() -> assertThat(calls).areSerializedBy("setup_request", this.user))
			.withMessageContaining("test-managed transaction")
			.withMessageContaining("@Transactional(propagation = Propagation.NOT_SUPPORTED)");
	}

}
