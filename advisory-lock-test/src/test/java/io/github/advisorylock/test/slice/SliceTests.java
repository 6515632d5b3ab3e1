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

package io.github.advisorylock.test.slice;

import java.lang.annotation.Annotation;
import java.util.UUID;
import java.util.stream.Stream;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.test.AdvisoryLockTester;
import io.github.advisorylock.test.AutoConfigureAdvisoryLockTester;
import io.github.advisorylock.test.ConcurrentCalls;
import io.github.advisorylock.test.OutsideLock;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.SlicedTest;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The test kit in the test slices that include the starter's locks, on the Spring Boot
 * line of the class path ({@link SlicedTest}): the tester is added to the slice, holds
 * locks from outside its transaction, and its serialization assertion refuses the JDBC
 * slices' test-managed transaction and works once it is switched off, or in
 * {@code @DataR2dbcTest}, which has none.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class SliceTests {

	static Stream<Arguments> jdbcSlices() {
		return Stream.of(arguments(named("@JdbcTest", BootAutoConfigurations.jdbcTest())),
				arguments(named("@DataJdbcTest", BootAutoConfigurations.dataJdbcTest())),
				arguments(named("@DataJpaTest", BootAutoConfigurations.dataJpaTest())));
	}

	@ParameterizedTest
	@MethodSource("jdbcSlices")
	void aLockHeldFromOutsideRefusesATryInTheTestsTransaction(Class<? extends Annotation> slice) throws Throwable {
		SlicedTest.run(JdbcUserTest.class, slice, "aLockHeldFromOutsideRefusesATry");
	}

	@ParameterizedTest
	@MethodSource("jdbcSlices")
	void theAssertionRefusesTheTestsTransaction(Class<? extends Annotation> slice) throws Throwable {
		SlicedTest.run(JdbcUserTest.class, slice, "theAssertionRefusesTheTestsTransaction");
	}

	@ParameterizedTest
	@MethodSource("jdbcSlices")
	void theAssertionWorksWithTheTestsTransactionSwitchedOff(Class<? extends Annotation> slice) throws Throwable {
		SlicedTest.run(JdbcUserTest.class, slice, "callsAreSerialized");
	}

	@Test
	void theAssertionWorksInDataR2dbcTest() throws Throwable {
		SlicedTest.run(R2dbcUserTest.class, BootAutoConfigurations.dataR2dbcTest(), "callsAreSerialized");
	}

	/**
	 * The application, found by the slice as an application's own
	 * {@code @SpringBootApplication} is.
	 */
	@SpringBootApplication
	static class Application {

	}

	/**
	 * A test of a JDBC application's locked service, as the application writes it; the
	 * slice annotation is added by {@link SlicedTest}. The slice's test database is the
	 * real PostgreSQL, not an embedded one.
	 */
	@AutoConfigureAdvisoryLockTester
	@Import(SetupRequests.class)
	@TestPropertySource(properties = "spring.test.database.replace=none")
	public static class JdbcUserTest {

		@DynamicPropertySource
		static void database(DynamicPropertyRegistry registry) {
			TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
			registry.add("advisory-lock.default-timeout", () -> "30s");
		}

		@Autowired
		private AdvisoryLockTester locks;

		@Autowired
		private SetupRequests setupRequests;

		private final String user = UUID.randomUUID().toString();

		public void aLockHeldFromOutsideRefusesATry() {
			try (OutsideLock held = this.locks.hold("setup_request", this.user)) {
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> this.setupRequests.tryRequest(this.user));
			}
		}

		public void theAssertionRefusesTheTestsTransaction() {
			ConcurrentCalls calls = this.locks.concurrentCalls(2, () -> this.setupRequests.request(this.user));
			assertThatIllegalStateException()
				.isThrownBy(() -> assertThat(calls).areSerializedBy("setup_request", this.user))
				.withMessageContaining("@Transactional(propagation = Propagation.NOT_SUPPORTED)");
		}

		@Transactional(propagation = Propagation.NOT_SUPPORTED)
		public void callsAreSerialized() {
			ConcurrentCalls calls = this.locks.concurrentCalls(3, () -> this.setupRequests.request(this.user));
			assertThat(calls).areSerializedBy("setup_request", this.user);
		}

	}

	/**
	 * A test of an R2DBC application's locked service, as the application writes it; the
	 * slice annotation is added by {@link SlicedTest}.
	 */
	@AutoConfigureAdvisoryLockTester
	@Import(ReactiveSetupRequests.class)
	public static class R2dbcUserTest {

		@DynamicPropertySource
		static void database(DynamicPropertyRegistry registry) {
			R2dbcConnectionFactories.springR2dbcProperties().forEach((name, value) -> registry.add(name, () -> value));
			registry.add("advisory-lock.default-timeout", () -> "30s");
		}

		@Autowired
		private AdvisoryLockTester locks;

		@Autowired
		private ReactiveSetupRequests setupRequests;

		private final String user = UUID.randomUUID().toString();

		public void callsAreSerialized() {
			ConcurrentCalls calls = this.locks.concurrentCalls(3, () -> this.setupRequests.request(this.user));
			assertThat(calls).areSerializedBy("setup_request", this.user);
			assertThat(calls.results()).containsExactly("created", "created", "created");
		}

	}

	/**
	 * A locked service of a JDBC application, which the slices' scan leaves out.
	 */
	public static class SetupRequests {

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#user")
		public String request(String user) {
			return "created";
		}

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#user", waitMode = WaitMode.TRY)
		public String tryRequest(String user) {
			return "created";
		}

	}

	/**
	 * A locked service of an R2DBC application, which the slice's scan leaves out.
	 */
	public static class ReactiveSetupRequests {

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#user")
		public Mono<String> request(String user) {
			return Mono.just("created");
		}

	}

}
