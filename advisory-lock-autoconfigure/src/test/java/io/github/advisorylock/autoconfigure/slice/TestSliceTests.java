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

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.SlicedTest;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests that a locked service imported into a {@code @JdbcTest}, {@code @DataJdbcTest} or
 * {@code @DataJpaTest} takes its lock, as the starter registers its auto-configuration
 * with these slices. Each runs {@link UserTest}, a test as an application would write it,
 * through {@link SlicedTest}, with the slice annotation of the Spring Boot line on the
 * class path: the annotations' packages differ between the lines.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class TestSliceTests {

	static Stream<Arguments> slices() {
		return Stream.of(arguments(named("@JdbcTest", BootAutoConfigurations.jdbcTest())),
				arguments(named("@DataJdbcTest", BootAutoConfigurations.dataJdbcTest())),
				arguments(named("@DataJpaTest", BootAutoConfigurations.dataJpaTest())));
	}

	@ParameterizedTest
	@MethodSource("slices")
	void lockedCallJoinsTheTestTransactionAndHoldsItsLock(Class<? extends Annotation> slice) throws Throwable {
		runUserTest(slice, "lockedCallHoldsItsLockInTheTestTransaction");
	}

	@ParameterizedTest
	@MethodSource("slices")
	void invocationScopedCallOutsideTheTestTransactionHoldsItsLock(Class<? extends Annotation> slice) throws Throwable {
		runUserTest(slice, "invocationScopedCallHoldsItsLock");
	}

	private static void runUserTest(Class<? extends Annotation> slice, String methodName) throws Throwable {
		SlicedTest.run(UserTest.class, slice, methodName);
	}

	/**
	 * The application, found by the slice as an application's own
	 * {@code @SpringBootApplication} is; its component scan finds the services, which the
	 * slices leave out.
	 */
	@SpringBootApplication
	static class Application {

	}

	/**
	 * A test of a repository-level service, as an application writes it; the slice
	 * annotation is added by {@link TestSliceTests}. The slice's test database is the
	 * real PostgreSQL, not an embedded one.
	 */
	@Import({ SetupRequests.class, Jobs.class })
	@TestPropertySource(properties = "spring.test.database.replace=none")
	public static class UserTest {

		@DynamicPropertySource
		static void database(DynamicPropertyRegistry registry) {
			TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		}

		private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

		@Autowired
		private SetupRequests setupRequests;

		@Autowired
		private Jobs jobs;

		@Autowired
		private JdbcTemplate jdbc;

		public void lockedCallHoldsItsLockInTheTestTransaction() {
			UUID user = UUID.randomUUID();
			this.setupRequests.create(user);
			Integer testTransaction = this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
			// Held by the test's transaction until it rolls back.
			assertThat(this.pgLocks.on(AdvisoryLockKeys.of("setup_request", user)))
				.extracting(AdvisoryLock::pid, AdvisoryLock::granted)
				.containsExactly(tuple(testTransaction, true));
		}

		// Invocation scope refuses to start inside a transaction, as the slices' test
		// methods are.
		@Transactional(propagation = Propagation.NOT_SUPPORTED)
		public void invocationScopedCallHoldsItsLock() {
			long key = AdvisoryLockKeys.of("job", "nightly");
			List<AdvisoryLock> whileRunning = this.jobs.run("nightly", () -> this.pgLocks.on(key));
			assertThat(whileRunning).extracting(AdvisoryLock::granted).containsExactly(true);
			assertThat(this.pgLocks.on(key)).isEmpty();
		}

	}

	/**
	 * A repository-level service under a transaction-scoped lock, which the slices' scan
	 * leaves out.
	 */
	@Service
	public static class SetupRequests {

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#userId")
		public void create(UUID userId) {
		}

	}

	/**
	 * A job under an invocation-scoped lock, which the slices' scan leaves out.
	 */
	@Service
	public static class Jobs {

		@AdvisoryLocked(namespace = "job", key = "#name", scope = LockScope.INVOCATION)
		public <T> T run(String name, Supplier<T> work) {
			return work.get();
		}

	}

}
