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
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
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
import io.github.advisorylock.testsupport.TestDatabase;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.SuperMethodCall;
import net.bytebuddy.implementation.attribute.MethodAttributeAppender;
import net.bytebuddy.matcher.ElementMatchers;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestContextManager;
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
 * through Spring's {@link TestContextManager}, with the slice annotation of the Spring
 * Boot line on the class path added to a generated subclass: the annotations' packages
 * differ between the lines.
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
		runUserTest(UserTest.class, slice, methodName);
	}

	/**
	 * Run one method of a user's test class annotated with a slice, as the
	 * {@code SpringExtension} would: the test's transaction, if the slice has one, begins
	 * before it and rolls back after it. Spring finds the generated class through the
	 * thread's context class loader.
	 * @param userTest the test class as an application writes it, but for the slice
	 * annotation
	 * @param slice the slice annotation
	 * @param methodName the test method to run
	 * @throws Throwable what the test method threw
	 */
	static void runUserTest(Class<?> userTest, Class<? extends Annotation> slice, String methodName) throws Throwable {
		Class<?> testClass = userTestIn(userTest, slice);
		Thread thread = Thread.currentThread();
		ClassLoader classLoader = thread.getContextClassLoader();
		thread.setContextClassLoader(testClass.getClassLoader());
		try {
			run(testClass, methodName);
		}
		finally {
			thread.setContextClassLoader(classLoader);
		}
	}

	private static void run(Class<?> testClass, String methodName) throws Throwable {
		TestContextManager manager = new TestContextManager(testClass);
		Object test = testClass.getDeclaredConstructor().newInstance();
		Method method = testClass.getMethod(methodName);
		Throwable failure = null;
		manager.beforeTestClass();
		try {
			manager.prepareTestInstance(test);
			manager.beforeTestMethod(test, method);
			manager.beforeTestExecution(test, method);
			try {
				method.invoke(test);
			}
			catch (InvocationTargetException ex) {
				failure = ex.getCause();
			}
			manager.afterTestExecution(test, method, failure);
			manager.afterTestMethod(test, method, failure);
		}
		finally {
			// Each generated class runs once: close its context, and its pool, now.
			manager.getTestContext().markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
			manager.afterTestClass();
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Generate the subclass of a user's test class with the slice annotation, in a class
	 * loader of its own that also serves its class file, which Spring's test context
	 * reads as it would read a compiled test's.
	 */
	private static Class<?> userTestIn(Class<?> userTest, Class<? extends Annotation> slice) {
		return new ByteBuddy(ClassFileVersion.JAVA_V17).subclass(userTest)
			.name(userTest.getName() + "In" + slice.getSimpleName())
			.annotateType(AnnotationDescription.Builder.ofType(slice).build())
			// Declared again, with their annotations, as test methods are declared by the
			// annotated class.
			.method(ElementMatchers.isDeclaredBy(userTest).and(ElementMatchers.isPublic()))
			.intercept(SuperMethodCall.INSTANCE)
			.attribute(MethodAttributeAppender.ForInstrumentedMethod.INCLUDING_RECEIVER)
			.make()
			.load(TestSliceTests.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER_PERSISTENT)
			.getLoaded();
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
