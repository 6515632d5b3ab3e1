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
package io.github.advisorylock.sample;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.sample.jobs.StaleRequestExpiry;
import io.github.advisorylock.sample.ledger.LedgerService;
import io.github.advisorylock.sample.setup.Plan;
import io.github.advisorylock.sample.setup.SetupRequest;
import io.github.advisorylock.sample.setup.SetupRequestService;
import io.github.advisorylock.sample.setup.User;
import io.github.advisorylock.sample.setup.UserService;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.aot.AotTestContextInitializers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample in Spring's AOT mode (the {@code aot} profile, docs/aot.md): the proxies of
 * the annotated beans are instances of the classes generated at build time, not of
 * classes generated at runtime, and the lock is taken through them. The other tests of
 * the sample run in the same mode; this one, tagged {@code aot}, runs only there.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE)
@Tag("aot")
class AotModeTests extends SampleDatabaseTests {

	/** Where process-test-aot writes the classes it generates, relative to the module. */
	private static final Path GENERATED_CLASSES = Path.of("target", "spring-aot", "test", "classes");

	@Autowired
	private SetupRequestService setupRequests;

	@Autowired
	private LedgerService ledger;

	@Autowired
	private StaleRequestExpiry expiry;

	@Autowired
	private UserService users;

	@Test
	void theContextStartedFromTheBuildTimeOutput() {
		assertThat(AotDetector.useGeneratedArtifacts()).as("spring.aot.enabled").isTrue();
		// What only process-test-aot provides: the generated initializer of this test
		// class's context, which AOT mode starts the context from instead of parsing the
		// configuration.
		AotTestContextInitializers initializers = new AotTestContextInitializers();
		assertThat(initializers.isSupportedTestClass(AotModeTests.class)).as("a build-time context for this class")
			.isTrue();
		assertThat(initializers.getContextInitializerClass(AotModeTests.class).getName()).contains("__TestContext");
	}

	@Test
	void theAnnotatedBeansAreProxiesOfClassesGeneratedAtBuildTime() throws Exception {
		// Transaction scope behind @Transactional's proxy, and invocation scope alone
		// (which no other proxy makes).
		for (Object bean : List.of(this.setupRequests, this.ledger, this.expiry)) {
			assertThat(AopUtils.isCglibProxy(bean)).as("%s is proxied", bean).isTrue();
			Class<?> proxyClass = bean.getClass();
			Class<?> userClass = AopUtils.getTargetClass(bean);
			assertThat(GENERATED_CLASSES.resolve(proxyClass.getName().replace('.', '/') + ".class"))
				.as("the build-time class of %s", proxyClass.getName())
				.isRegularFile();
			// A class generated at runtime would be defined next to the bean's class
			// (target/classes); the one generated at build time is loaded from the test
			// classes, where process-test-aot copied it.
			assertThat(location(proxyClass)).as("where %s was loaded from", proxyClass.getName())
				.isEqualTo(location(AotModeTests.class))
				.isNotEqualTo(location(userClass));
			// One class per bean: the lock's advisors join @Transactional's proxy, no
			// second proxy class is made.
			assertThat(proxyClassesOf(userClass)).containsExactly(proxyClass.getSimpleName() + ".class");
		}
	}

	@Test
	void aCallThroughTheBuildTimeProxyWaitsForTheLock() throws Exception {
		User user = this.users.create(Plan.FREE);
		long key = AdvisoryLockKeys.of("setup_request", user.id());
		PgLocks locks = new PgLocks(TestDatabase.get().dataSource());
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key)) {
			CompletableFuture<SetupRequest> created = CompletableFuture
				.supplyAsync(() -> this.setupRequests.create(user.id()));
			locks.awaitWaiters(key, 1);
			assertThat(created).isNotDone();
			holder.rollback();
			assertThat(created.get(Concurrently.HANG_SECONDS, TimeUnit.SECONDS).userId()).isEqualTo(user.id());
		}
	}

	private static Path location(Class<?> type) throws URISyntaxException {
		return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
	}

	private static List<String> proxyClassesOf(Class<?> userClass) throws IOException {
		Path directory = GENERATED_CLASSES.resolve(userClass.getPackageName().replace('.', '/'));
		try (Stream<Path> files = Files.list(directory)) {
			return files.map((file) -> file.getFileName().toString())
				.filter((name) -> name.startsWith(userClass.getSimpleName() + "$$SpringCGLIB$$"))
				.toList();
		}
	}

}
