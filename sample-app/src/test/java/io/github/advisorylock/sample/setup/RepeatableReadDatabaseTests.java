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

import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.sample.Concurrently;
import io.github.advisorylock.sample.Concurrently.Outcome;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The sample on a database whose default isolation is REPEATABLE READ, where a count
 * after the lock would not see the previous holder's row: the starter refuses to run the
 * locked method, and an explicit READ COMMITTED transaction, as the article recommends,
 * keeps the rule.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE)
@ExtendWith(NoAdvisoryLocksLeft.class)
class RepeatableReadDatabaseTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase database = TestDatabase.get();
		String url = database.createDatabase("sample_repeatable_read");
		JdbcClient.create(database.dataSource())
			.sql("ALTER DATABASE sample_repeatable_read SET default_transaction_isolation = 'repeatable read'")
			.update();
		database.springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		registry.add("spring.datasource.url", () -> url);
		registry.add("advisory-lock.default-timeout", () -> "30s");
		// As in SampleDatabaseTests: a job's lock would be one this test leaves, and the
		// context stays cached.
		registry.add("sample.jobs.enabled", () -> "false");
	}

	@Autowired
	private UserService users;

	@Autowired
	private SetupRequestService setupRequests;

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void theLockedMethodRefusesToRunAndWritesNothing() {
		User user = this.users.create(Plan.FREE);
		assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> this.setupRequests.create(user.id()))
			.withMessageContaining("repeatable read");
		assertThat(this.jdbc.sql("SELECT count(*) FROM setup_requests WHERE user_id = ?")
			.param(user.id())
			.query(Long.class)
			.single()).isZero();
	}

	@Test
	void anExplicitReadCommittedTransactionKeepsTheRule() {
		User user = this.users.create(Plan.FREE);
		TransactionTemplate readCommitted = new TransactionTemplate(this.transactionManager);
		readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		List<Outcome<SetupRequest>> outcomes = Concurrently.run(5,
				(i) -> readCommitted.execute((status) -> this.setupRequests.create(user.id())));
		assertThat(outcomes).filteredOn(Outcome::succeeded).hasSize(1);
		assertThat(outcomes).filteredOn((outcome) -> !outcome.succeeded())
			.allSatisfy((outcome) -> assertThat(outcome.failure()).isInstanceOf(PendingLimitReachedException.class));
		assertThat(this.setupRequests.list(user.id(), SetupRequest.PENDING)).hasSize(1);
	}

}
