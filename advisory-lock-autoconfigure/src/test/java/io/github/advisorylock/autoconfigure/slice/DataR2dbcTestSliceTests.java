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

package io.github.advisorylock.autoconfigure.slice;

import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.SlicedTest;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a locked reactive service imported into a {@code @DataR2dbcTest} takes its
 * lock, as the starter registers its reactive auto-configuration with that slice, and
 * that the slice's test runs in no transaction of its own, unlike the JDBC slices'. The
 * test runs as {@link TestSliceTests} runs the JDBC slices' tests: with the slice
 * annotation of the Spring Boot line on the class path added to a generated subclass.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class DataR2dbcTestSliceTests {

	@Test
	void lockedReactiveCallHoldsItsLockInItsOwnTransaction() throws Throwable {
		SlicedTest.run(ReactiveUserTest.class, BootAutoConfigurations.dataR2dbcTest(),
				"lockedCallHoldsItsLockUntilItCommits");
	}

	/**
	 * A test of a reactive repository-level service, as an application writes it; the
	 * slice annotation is added by {@link DataR2dbcTestSliceTests}. The slice finds
	 * {@link TestSliceTests.Application} as an application's own.
	 */
	@Import(ReactiveSetupRequests.class)
	public static class ReactiveUserTest {

		@DynamicPropertySource
		static void database(DynamicPropertyRegistry registry) {
			R2dbcConnectionFactories.springR2dbcProperties().forEach((name, value) -> registry.add(name, () -> value));
		}

		private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

		@Autowired
		private ReactiveSetupRequests setupRequests;

		public void lockedCallHoldsItsLockUntilItCommits() {
			UUID user = UUID.randomUUID();
			StepVerifier.create(this.setupRequests.create(user)).expectNext(true).verifyComplete();
			// No test transaction holds it on: the method's own transaction has ended.
			assertThat(this.pgLocks.on(AdvisoryLockKeys.of("reactive_setup_request", user))).isEmpty();
		}

	}

	/**
	 * A reactive repository-level service under a transaction-scoped lock, which the
	 * slice's scan leaves out.
	 */
	@Service
	public static class ReactiveSetupRequests {

		private final DatabaseClient database;

		public ReactiveSetupRequests(ConnectionFactory connectionFactory) {
			this.database = DatabaseClient.create(connectionFactory);
		}

		/**
		 * Return whether the session of this method's transaction holds the lock.
		 */
		@Transactional
		@AdvisoryLocked(namespace = "reactive_setup_request", key = "#userId")
		public Mono<Boolean> create(UUID userId) {
			return this.database
				.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
						+ "AND pid = pg_backend_pid() AND " + PgLocks.KEY_EXPRESSION + " = $1")
				.bind(0, AdvisoryLockKeys.of("reactive_setup_request", userId))
				.map((row) -> row.get(0, Long.class))
				.one()
				.map((held) -> held == 1);
		}

	}

}
