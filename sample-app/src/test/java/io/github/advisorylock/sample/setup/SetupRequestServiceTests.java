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
package io.github.advisorylock.sample.setup;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.sample.Concurrently;
import io.github.advisorylock.sample.Concurrently.Outcome;
import io.github.advisorylock.sample.NotFoundException;
import io.github.advisorylock.sample.SampleDatabaseTests;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The setup-request rule against real PostgreSQL, with concurrent callers on independent
 * connections: the cases of the article's verification list that concern the service.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE)
class SetupRequestServiceTests extends SampleDatabaseTests {

	private final DataSource observer = TestDatabase.get().dataSource();

	private final PgLocks locks = new PgLocks(this.observer);

	@Autowired
	private UserService users;

	@Autowired
	private SetupRequestService setupRequests;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void concurrentRequestsOfAFreeUserCreateOneAndRejectTheRestCleanly() {
		User user = this.users.create(Plan.FREE);
		List<Outcome<SetupRequest>> outcomes = Concurrently.run(8, (i) -> this.setupRequests.create(user.id()));
		assertThat(outcomes).filteredOn(Outcome::succeeded).hasSize(1);
		assertThat(outcomes).filteredOn((outcome) -> !outcome.succeeded())
			.hasSize(7)
			.allSatisfy((outcome) -> assertThat(outcome.failure()).isInstanceOf(PendingLimitReachedException.class));
		assertThat(pendingRows(user)).isOne();
	}

	@Test
	void fiveConcurrentRequestsOfAProUserCreateThree() {
		User user = this.users.create(Plan.PRO);
		List<Outcome<SetupRequest>> outcomes = Concurrently.run(5, (i) -> this.setupRequests.create(user.id()));
		assertThat(outcomes).filteredOn(Outcome::succeeded).hasSize(3);
		assertThat(outcomes).filteredOn((outcome) -> !outcome.succeeded())
			.allSatisfy((outcome) -> assertThat(outcome.failure()).isInstanceOf(PendingLimitReachedException.class));
		assertThat(pendingRows(user)).isEqualTo(3);
	}

	@Test
	void waitsForTheKeyThatSqlDerivesForTheUserThenSeesTheHoldersRow() throws Exception {
		User user = this.users.create(Plan.FREE);
		long key = this.jdbc.sql("SELECT " + AdvisoryLockKeys.SQL_EXPRESSION.replace("$1", "?").replace("$2", "?"))
			.params("setup_request", user.id().toString())
			.query(Long.class)
			.single();
		CompletableFuture<SetupRequest> created;
		try (LockHolder holder = LockHolder.exclusive(this.observer, key)) {
			// Another service, in SQL, creates the user's pending request while holding
			// the same lock.
			holder.update("INSERT INTO setup_requests (id, user_id, status) VALUES (?, ?, 'pending')",
					UUID.randomUUID(), user.id());
			created = CompletableFuture.supplyAsync(() -> this.setupRequests.create(user.id()));
			this.locks.awaitWaiters(key, 1);
			holder.commit();
		}
		assertThat(created).failsWithin(Concurrently.HANG_SECONDS, TimeUnit.SECONDS)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(PendingLimitReachedException.class);
		assertThat(pendingRows(user)).isOne();
	}

	@Test
	void aLockHeldForAnotherUserDoesNotBlock() {
		User held = this.users.create(Plan.FREE);
		User other = this.users.create(Plan.FREE);
		try (LockHolder holder = LockHolder.exclusive(this.observer, AdvisoryLockKeys.of("setup_request", held.id()))) {
			// Same thread: were the call to wait for the holder, it would wait until its
			// 30 s timeout and fail.
			SetupRequest request = this.setupRequests.create(other.id());
			assertThat(request.userId()).isEqualTo(other.id());
			assertThat(this.locks.on(AdvisoryLockKeys.of("setup_request", held.id()))).singleElement()
				.satisfies((lock) -> assertThat(lock.pid()).isEqualTo(holder.pid()));
		}
	}

	@Test
	void cancellingOrCompletingFreesTheSlot() {
		User user = this.users.create(Plan.FREE);
		SetupRequest first = this.setupRequests.create(user.id());
		assertThatExceptionOfType(PendingLimitReachedException.class)
			.isThrownBy(() -> this.setupRequests.create(user.id()))
			.withMessageContaining("limit of the free plan");
		assertThat(this.setupRequests.cancel(user.id(), first.id()).status()).isEqualTo("cancelled");
		SetupRequest second = this.setupRequests.create(user.id());
		assertThat(this.setupRequests.complete(user.id(), second.id()).status()).isEqualTo("completed");
		assertThat(this.setupRequests.create(user.id()).status()).isEqualTo(SetupRequest.PENDING);
		assertThat(this.setupRequests.list(user.id(), null)).extracting(SetupRequest::status)
			.containsExactlyInAnyOrder("cancelled", "completed", "pending");
		assertThat(this.setupRequests.list(user.id(), "pending")).hasSize(1);
	}

	@Test
	void concurrentCompletionAndCancellationOfOneRequestLetOneWin() {
		User user = this.users.create(Plan.FREE);
		SetupRequest request = this.setupRequests.create(user.id());
		List<Outcome<SetupRequest>> outcomes = Concurrently.run(8,
				(i) -> (i % 2 == 0) ? this.setupRequests.complete(user.id(), request.id())
						: this.setupRequests.cancel(user.id(), request.id()));
		assertThat(outcomes).filteredOn(Outcome::succeeded).hasSize(1);
		assertThat(outcomes).filteredOn((outcome) -> !outcome.succeeded())
			.allSatisfy((outcome) -> assertThat(outcome.failure()).isInstanceOf(RequestNotPendingException.class));
	}

	@Test
	void unknownUsersAndRequestsAreNotFound() {
		User user = this.users.create(Plan.FREE);
		UUID unknown = UUID.randomUUID();
		assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> this.setupRequests.create(unknown))
			.withMessage("User " + unknown + " does not exist");
		assertThatExceptionOfType(NotFoundException.class)
			.isThrownBy(() -> this.setupRequests.cancel(user.id(), unknown))
			.withMessage("Setup request " + unknown + " does not exist");
	}

	private long pendingRows(User user) {
		return this.jdbc.sql("SELECT count(*) FROM setup_requests WHERE user_id = ? AND status = 'pending'")
			.param(user.id())
			.query(Long.class)
			.single();
	}

}
