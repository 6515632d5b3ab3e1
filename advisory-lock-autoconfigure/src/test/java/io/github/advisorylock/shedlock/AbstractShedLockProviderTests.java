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

package io.github.advisorylock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.dao.CannotAcquireLockException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's provider suite, run against {@link AdvisoryLockProvider} on the real
 * database: one test for each test of {@code AbstractLockProviderIntegrationTest} and
 * {@code AbstractExtensibleLockProviderIntegrationTest} of {@code shedlock-test-support}
 * 6.10.0, under the same name and with the same assertions, and its {@code FuzzTester}.
 * That module is not published (ShedLock's build excludes it from Maven Central), so it
 * cannot be subclassed: the suite is written again here. Where the original sleeps past a
 * time, these wait for the fact in {@code pg_locks} instead, bounded by the hang bound;
 * {@code assertLocked} and {@code assertUnlocked} read {@code pg_locks}.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
abstract class AbstractShedLockProviderTests {

	/**
	 * ShedLock's {@code LOCK_AT_LEAST_FOR}, 5 seconds instead of its 2: the test asserts
	 * the lock still held before it has passed, after a lock, an unlock and a second
	 * lock, which a machine whose cores are busy can stretch past 2 seconds.
	 */
	static final Duration LOCK_AT_LEAST_FOR = Duration.ofSeconds(5);

	/**
	 * The extensible suite's {@code originalLockDuration}, 5 seconds instead of its 2:
	 * the lock must still be held when it is extended, after a lock and a read of
	 * {@code pg_locks}.
	 */
	static final Duration ORIGINAL_LOCK_DURATION = Duration.ofSeconds(5);

	/** ShedLock's {@code LOCK_NAME1}, a fresh one each test as in its newer versions. */
	final String lockName1 = "name-" + UUID.randomUUID();

	private final String namespace = "shedlock-" + UUID.randomUUID();

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private @Nullable AdvisoryLockTemplate template;

	private @Nullable AdvisoryLockProvider provider;

	/**
	 * Return the application's pool the locks' connections are derived from.
	 * @return the pool
	 */
	protected abstract DataSource dataSource();

	@BeforeEach
	void createProvider() {
		AdvisoryLockTemplate template = new AdvisoryLockTemplate(dataSource());
		template.setHeartbeat(Duration.ofMillis(500));
		this.template = template;
		this.provider = new AdvisoryLockProvider(template, this.namespace);
	}

	/**
	 * Release what a test leaves held ({@code shouldBeAbleToExtendAtLeast} ends with its
	 * lock kept for 9 seconds), before the check that nothing is left.
	 */
	@AfterEach
	void closeProvider() throws Exception {
		// Neither exists where the data source was not there (PgBouncer not installed).
		if (this.provider != null) {
			this.provider.close();
		}
		if (this.template != null) {
			this.template.close();
		}
	}

	AdvisoryLockProvider getLockProvider() {
		AdvisoryLockProvider provider = this.provider;
		assertThat(provider).isNotNull();
		return provider;
	}

	void assertLocked(String lockName) {
		assertThat(granted(lockName)).as("lock '%s' held in pg_locks", lockName).isTrue();
	}

	void assertUnlocked(String lockName) {
		assertThat(granted(lockName)).as("lock '%s' held in pg_locks", lockName).isFalse();
	}

	private boolean granted(String lockName) {
		return this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, lockName))
			.stream()
			.anyMatch(PgLocks.AdvisoryLock::granted);
	}

	private void awaitUnlocked(String lockName) {
		await().atMost(PgLocks.HANG_TIMEOUT).pollInterval(Duration.ofMillis(5)).until(() -> !granted(lockName));
	}

	private static void awaitPast(Instant instant) {
		await().atMost(PgLocks.HANG_TIMEOUT)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> ClockProvider.now().isAfter(instant));
	}

	static LockConfiguration lockConfig(String name) {
		return lockConfig(name, Duration.ofMinutes(5), Duration.ZERO);
	}

	static LockConfiguration lockConfig(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
	}

	@Test
	void noRunStartsOnceTheTemplateIsClosedAsTheApplicationShutsDown() throws Exception {
		AdvisoryLockTemplate template = this.template;
		assertThat(template).isNotNull();
		template.close();
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> getLockProvider().lock(lockConfig(this.lockName1)))
			.withMessageContaining("the application is shutting down");
		assertUnlocked(this.lockName1);
	}

	// AbstractLockProviderIntegrationTest

	@Test
	void shouldCreateLock() {
		Optional<SimpleLock> lock = getLockProvider().lock(lockConfig(this.lockName1));
		assertThat(lock).isNotEmpty();
		assertLocked(this.lockName1);
		lock.get().unlock();
		assertUnlocked(this.lockName1);
	}

	@Test
	void shouldNotReturnSecondLock() {
		Optional<SimpleLock> lock = getLockProvider().lock(lockConfig(this.lockName1));
		assertThat(lock).isNotEmpty();
		assertThat(getLockProvider().lock(lockConfig(this.lockName1))).isEmpty();
		lock.get().unlock();
	}

	@Test
	void shouldCreateTwoIndependentLocks() {
		Optional<SimpleLock> lock1 = getLockProvider().lock(lockConfig(this.lockName1));
		assertThat(lock1).isNotEmpty();
		Optional<SimpleLock> lock2 = getLockProvider().lock(lockConfig("name2"));
		assertThat(lock2).isNotEmpty();
		lock1.get().unlock();
		lock2.get().unlock();
	}

	@Test
	void shouldLockTwiceInARow() {
		Optional<SimpleLock> lock1 = getLockProvider().lock(lockConfig(this.lockName1));
		assertThat(lock1).isNotEmpty();
		lock1.get().unlock();
		Optional<SimpleLock> lock2 = getLockProvider().lock(lockConfig(this.lockName1));
		assertThat(lock2).isNotEmpty();
		lock2.get().unlock();
	}

	@Test
	void shouldTimeout() {
		// ShedLock's original asks 50 ms; 5 seconds, so that the lock is surely still
		// held
		// when pg_locks is first read on a machine whose cores are busy (through
		// PgBouncer
		// a lock() took longer than 50 ms once; its first connection, longer still).
		LockConfiguration configWithShortTimeout = lockConfig(this.lockName1, Duration.ofSeconds(5), Duration.ZERO);
		Optional<SimpleLock> lock1 = getLockProvider().lock(configWithShortTimeout);
		assertThat(lock1).isNotEmpty();
		assertLocked(this.lockName1);
		// The original sleeps past lockAtMostFor: here, the release at that time is
		// waited for.
		awaitUnlocked(this.lockName1);
		assertThat(ClockProvider.now()).isAfterOrEqualTo(configWithShortTimeout.getLockAtMostUntil());
		Optional<SimpleLock> lock2 = getLockProvider()
			.lock(lockConfig(this.lockName1, Duration.ofMillis(50), Duration.ZERO));
		assertThat(lock2).isNotEmpty();
		lock2.get().unlock();
	}

	@Test
	void shouldBeAbleToLockRightAfterUnlock() {
		LockConfiguration lockConfiguration = lockConfig(this.lockName1);
		for (int i = 0; i < 10; i++) {
			Optional<SimpleLock> lock = getLockProvider().lock(lockConfiguration);
			assertThat(getLockProvider().lock(lockConfiguration)).isEmpty();
			assertThat(lock).isNotEmpty();
			lock.get().unlock();
		}
	}

	@Test
	void fuzzTestShouldPass() throws Exception {
		new FuzzTester(getLockProvider()).doFuzzTest();
	}

	@Test
	void shouldLockAtLeastFor() {
		LockConfiguration configuration = lockConfig(this.lockName1, LOCK_AT_LEAST_FOR.multipliedBy(2),
				LOCK_AT_LEAST_FOR);
		Optional<SimpleLock> lock1 = getLockProvider().lock(configuration);
		assertThat(lock1).isNotEmpty();
		lock1.get().unlock();
		// Unlocked, it is still held, on its connection, until lockAtLeastFor has passed.
		assertThat(getLockProvider().lock(lockConfig(this.lockName1)))
			.describedAs("Can not acquire lock, grace period did not pass yet")
			.isEmpty();
		assertLocked(this.lockName1);
		awaitUnlocked(this.lockName1);
		assertThat(ClockProvider.now()).isAfterOrEqualTo(configuration.getLockAtLeastUntil());
		Optional<SimpleLock> lock3 = getLockProvider().lock(lockConfig(this.lockName1));
		assertThat(lock3).describedAs("Can acquire the lock after grace period").isNotEmpty();
		lock3.get().unlock();
	}

	// AbstractExtensibleLockProviderIntegrationTest

	@Test
	void shouldBeAbleToExtendLock() {
		LockConfiguration original = lockConfig(this.lockName1, ORIGINAL_LOCK_DURATION, Duration.ZERO);
		Optional<SimpleLock> lock = getLockProvider().lock(original);
		assertThat(lock).isNotEmpty();
		assertLocked(this.lockName1);
		Optional<SimpleLock> newLock = lock.get().extend(Duration.ofSeconds(10), Duration.ZERO);
		assertThat(newLock).isNotEmpty();
		// Past the original lockAtMostUntil, and the lock is still held.
		awaitPast(original.getLockAtMostUntil().plusMillis(200));
		assertLocked(this.lockName1);
		newLock.get().unlock();
		assertUnlocked(this.lockName1);
	}

	/**
	 * In ShedLock's newest suite; perhaps after 6.10.0.
	 */
	@Test
	void shouldBeAbleToExtendMultipleTimes() {
		LockConfiguration original = lockConfig(this.lockName1, ORIGINAL_LOCK_DURATION, Duration.ZERO);
		SimpleLock lock = getLockProvider().lock(original).orElseThrow();
		for (int i = 0; i < 3; i++) {
			lock = lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
		}
		awaitPast(original.getLockAtMostUntil().plusMillis(200));
		assertLocked(this.lockName1);
		lock.unlock();
		assertUnlocked(this.lockName1);
	}

	@Test
	void shouldNotBeAbleToExtendUnlockedLock() {
		Optional<SimpleLock> lock = getLockProvider()
			.lock(lockConfig(this.lockName1, ORIGINAL_LOCK_DURATION, Duration.ZERO));
		assertThat(lock).isNotEmpty();
		assertLocked(this.lockName1);
		lock.get().unlock();
		assertUnlocked(this.lockName1);
		assertThatIllegalStateException().isThrownBy(() -> lock.get().extend(Duration.ofSeconds(10), Duration.ZERO));
	}

	@Test
	void shouldNotBeAbleToExtendExpiredLock() {
		LockConfiguration configuration = lockConfig(this.lockName1, Duration.ofMillis(1), Duration.ZERO);
		Optional<SimpleLock> lock = getLockProvider().lock(configuration);
		awaitPast(configuration.getLockAtMostUntil());
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> newLock = lock.get().extend(Duration.ofSeconds(10), Duration.ZERO);
		assertThat(newLock).isEmpty();
		assertUnlocked(this.lockName1);
	}

	@Test
	void shouldBeAbleToExtendAtLeast() {
		Optional<SimpleLock> lock = getLockProvider()
			.lock(lockConfig(this.lockName1, Duration.ofSeconds(10), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> newLock = lock.get().extend(Duration.ofSeconds(10), Duration.ofSeconds(9));
		assertThat(newLock).isNotEmpty();
		newLock.get().unlock();
		assertLocked(this.lockName1);
	}

	@Test
	void lockCanNotBeExtendedTwice() {
		Optional<SimpleLock> lock = getLockProvider()
			.lock(lockConfig(this.lockName1, Duration.ofSeconds(10), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> newLock = lock.get().extend(Duration.ofSeconds(10), Duration.ofSeconds(9));
		assertThat(newLock).isNotEmpty();
		assertThatIllegalStateException()
			.isThrownBy(() -> lock.get().extend(Duration.ofSeconds(10), Duration.ofSeconds(9)));
	}

	@Test
	void lockCanNotBeUnlockedAfterExtending() {
		Optional<SimpleLock> lock = getLockProvider()
			.lock(lockConfig(this.lockName1, Duration.ofSeconds(10), Duration.ZERO));
		assertThat(lock).isNotEmpty();
		Optional<SimpleLock> newLock = lock.get().extend(Duration.ofSeconds(10), Duration.ofSeconds(9));
		assertThat(newLock).isNotEmpty();
		assertThatIllegalStateException().isThrownBy(() -> lock.get().unlock());
	}

	/**
	 * ShedLock's {@code FuzzTester}: eight threads count under two locks (one thread
	 * short), each retrying at once when the lock is held elsewhere; no count is lost.
	 */
	static final class FuzzTester {

		private static final int THREADS = 8;

		private static final int ITERATIONS = 100;

		private static final int SHORT_ITERATION = 10;

		private final AdvisoryLockProvider lockProvider;

		FuzzTester(AdvisoryLockProvider lockProvider) {
			this.lockProvider = lockProvider;
		}

		void doFuzzTest() throws Exception {
			Job job1 = new Job(
					new LockConfiguration(ClockProvider.now(), "lock1", Duration.ofMinutes(5), Duration.ofMillis(5)));
			Job job2 = new Job(
					new LockConfiguration(ClockProvider.now(), "lock2", Duration.ofMinutes(5), Duration.ofMillis(5)));
			ExecutorService executor = Executors.newFixedThreadPool(THREADS);
			try {
				List<Callable<Void>> tasks = new ArrayList<>();
				for (int i = 0; i < THREADS; i++) {
					int iterations = (i == 0) ? SHORT_ITERATION : ITERATIONS;
					Job job = (i % 2 == 0) ? job1 : job2;
					tasks.add(() -> task(iterations, job));
				}
				for (Future<Void> future : executor.invokeAll(tasks, PgLocks.HANG_TIMEOUT.toSeconds() * 4,
						TimeUnit.SECONDS)) {
					future.get();
				}
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(job2.counter).isEqualTo(THREADS / 2 * ITERATIONS);
			assertThat(job1.counter).isEqualTo((THREADS / 2 - 1) * ITERATIONS + SHORT_ITERATION);
		}

		private Void task(int iterations, Job job) throws InterruptedException {
			for (int i = 0; i < iterations;) {
				// ShedLock's configuration is made once per job: its lockAtLeastFor
				// counts from then, and has long passed after the first runs.
				Optional<SimpleLock> lock = this.lockProvider.lock(job.configuration);
				if (lock.isPresent()) {
					int n = job.counter;
					// Widens the window between read and write, so that two holders
					// at once would lose a count: what the fuzz test detects.
					Thread.sleep(1);
					job.counter = n + 1;
					lock.get().unlock();
					i++;
				}
			}
			return null;
		}

		private static final class Job {

			private final LockConfiguration configuration;

			/** Unsynchronized on purpose: only the lock keeps the counts right. */
			private int counter;

			Job(LockConfiguration configuration) {
				this.configuration = configuration;
			}

		}

	}

}
