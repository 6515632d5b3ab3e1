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

package io.github.advisorylock.actuate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLockDescriptor;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLocksDescriptor;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockEndpointAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for the {@link AdvisoryLocksEndpoint}: what it shows of real held and awaited
 * locks, and that it answers while the pool is exhausted. When it exists is tested in
 * {@code io.github.advisorylock.autoconfigure.AdvisoryLockEndpointAutoConfigurationTests}.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLocksEndpointTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/**
	 * The endpoint's bound on connecting and reading, 1s by default: a new connection on
	 * a loaded machine can take longer, and these tests read what the endpoint shows.
	 */
	private static final String GENEROUS_READS = "advisory-lock.diagnosis.timeout=" + HANG_SECONDS + "s";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockEndpointAutoConfiguration.class))
		.withBean(DataSource.class, () -> TestDatabase.get().dataSource())
		.withPropertyValues(GENEROUS_READS);

	private final ApplicationContextRunner exposed = this.contextRunner
		.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks");

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "endpoint-" + UUID.randomUUID();

	@Test
	void listsAHeldAndAWaitingLockOnANegativeKeyWithItsLabel() {
		// A value whose key is negative: the high half lands in classid as an unsigned
		// oid.
		int value = IntStream.iterate(0, (i) -> i + 1)
			.filter((i) -> AdvisoryLockKeys.of(this.namespace, i) < 0)
			.findFirst()
			.getAsInt();
		long key = AdvisoryLockKeys.of(this.namespace, value);
		this.exposed.run((context) -> {
			CountDownLatch locked = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Future<Integer> holder = this.threads.inTransaction(transaction(context), () -> {
				context.getBean(AdvisoryLockOperations.class).lock(this.namespace, value);
				locked.countDown();
				release.await(HANG_SECONDS, TimeUnit.SECONDS);
				return null;
			});
			// Its lock call returned, so its session is idle in transaction: a granted
			// row alone may still show it active.
			TestThreads.await(locked);
			Future<Integer> waiter = this.threads.inTransaction(transaction(context), () -> {
				context.getBean(AdvisoryLockOperations.class)
					.lock(LockRequest.of(this.namespace, value).withTimeout(PgLocks.HANG_TIMEOUT));
				return null;
			});
			this.pgLocks.awaitWaiters(key, 1);
			int holderPid = this.pgLocks.holderPid(key);
			int waiterPid = this.pgLocks.waiterPid(key);
			try {
				assertThat(endpoint(context).advisoryLocks().truncated()).isFalse();
				assertThat(endpoint(context).advisoryLocks().locks())
					.filteredOn((lock) -> Long.valueOf(key).equals(lock.key()))
					.satisfiesExactly((held) -> {
						assertThat(held.pid()).isEqualTo(holderPid);
						assertThat(held.granted()).isTrue();
						assertThat(held.label()).isEqualTo(this.namespace + ":" + value);
						assertThat(held.mode()).isEqualTo("ExclusiveLock");
						assertThat(held.waitStart()).isNull();
						assertThat(held.state()).isEqualTo("idle in transaction");
						assertThat(held.transactionAge()).isNotNull().isGreaterThanOrEqualTo(Duration.ZERO);
						assertThat(held.keyPair()).isNull();
						assertThat(held.query()).isNull();
					}, (waiting) -> {
						assertThat(waiting.pid()).isEqualTo(waiterPid);
						assertThat(waiting.granted()).isFalse();
						assertThat(waiting.label()).isEqualTo(this.namespace + ":" + value);
						assertThat(waiting.waitStart()).isNotNull();
						assertThat(waiting.state()).isEqualTo("active");
						assertThat(waiting.waitEventType()).isEqualTo("Lock");
						assertThat(waiting.waitEvent()).isEqualTo("advisory");
					});
			}
			finally {
				release.countDown();
			}
			holder.get(HANG_SECONDS, TimeUnit.SECONDS);
			waiter.get(HANG_SECONDS, TimeUnit.SECONDS);
		});
	}

	@Test
	void labelsAnInvocationScopedLockAndShowsItsApplicationName() {
		long key = AdvisoryLockKeys.of(this.namespace, "nightly");
		this.exposed.run((context) -> context.getBean(AdvisoryLockOperations.class)
			.execute(LockRequest.of(this.namespace, "nightly").withScope(LockScope.INVOCATION), (handle) -> {
				assertThat(endpoint(context).advisoryLocks().locks())
					.filteredOn((lock) -> Long.valueOf(key).equals(lock.key()))
					.singleElement()
					.satisfies((held) -> {
						assertThat(held.granted()).isTrue();
						assertThat(held.label()).isEqualTo(this.namespace + ":nightly");
						assertThat(held.state()).isEqualTo("idle in transaction");
						assertThat(held.applicationName()).startsWith("advisory-lock " + this.namespace);
					});
				return null;
			}));
	}

	@Test
	void showsTheTwoIntFormAsAPairAndUnknownKeysWithoutLabel() throws SQLException {
		long unlabelled = AdvisoryLockKeys.of(this.namespace, "never derived here");
		try (Connection connection = TestDatabase.get().dataSource().getConnection()) {
			connection.setAutoCommit(false);
			try (PreparedStatement statement = connection
				.prepareStatement("SELECT pg_advisory_xact_lock(-5, 7), pg_advisory_xact_lock(?)")) {
				statement.setLong(1, unlabelled);
				statement.execute();
			}
			try {
				this.exposed.run((context) -> {
					assertThat(endpoint(context).advisoryLocks().locks()).filteredOn((lock) -> lock.keyPair() != null)
						.singleElement()
						.satisfies((lock) -> {
							assertThat(lock.keyPair()).containsExactly(-5, 7);
							assertThat(lock.key()).isNull();
							assertThat(lock.label()).isNull();
						});
					assertThat(endpoint(context).advisoryLocks().locks())
						.filteredOn((lock) -> Long.valueOf(unlabelled).equals(lock.key()))
						.singleElement()
						.satisfies((lock) -> assertThat(lock.label()).isNull());
				});
			}
			finally {
				connection.rollback();
			}
		}
	}

	@Test
	void showsQueryTextOnlyWhenAskedTo() {
		this.exposed.run((context) -> this.threads.inTransaction(transaction(context), () -> {
			context.getBean(AdvisoryLockOperations.class).lock(this.namespace, 1);
			assertThat(endpoint(context).advisoryLocks().locks()).filteredOn(AdvisoryLockDescriptor::granted)
				.isNotEmpty()
				.allSatisfy((lock) -> assertThat(lock.query()).isNull());
			return null;
		}).get(HANG_SECONDS, TimeUnit.SECONDS));
		this.exposed.withPropertyValues("advisory-lock.endpoint.include-query=true")
			.run((context) -> this.threads.inTransaction(transaction(context), () -> {
				context.getBean(AdvisoryLockOperations.class).lock(this.namespace, 1);
				long key = AdvisoryLockKeys.of(this.namespace, 1);
				assertThat(endpoint(context).advisoryLocks().locks())
					.filteredOn((lock) -> Long.valueOf(key).equals(lock.key()))
					.singleElement()
					.satisfies((lock) -> assertThat(lock.query()).startsWith("/* advisory-lock " + this.namespace));
				return null;
			}).get(HANG_SECONDS, TimeUnit.SECONDS));
	}

	@Test
	void answersPromptlyWhileEveryPoolConnectionIsHeldByAWaiter() throws Exception {
		long key = AdvisoryLockKeys.of(this.namespace, "starved");
		try (HikariDataSource pool = TestDatabase.get().newDataSource(2)) {
			// Longer than the hang bound: an endpoint that waited for this pool would
			// fail the test.
			pool.setConnectionTimeout(TimeUnit.SECONDS.toMillis(HANG_SECONDS * 4));
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
						BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
						AdvisoryLockEndpointAutoConfiguration.class))
				.withBean(DataSource.class, () -> pool)
				.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks", GENEROUS_READS)
				.run((context) -> {
					try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key)) {
						LockRequest request = LockRequest.of(this.namespace, "starved")
							.withTimeout(PgLocks.HANG_TIMEOUT);
						List<Future<Integer>> waiters = IntStream.range(0, 2)
							.mapToObj((i) -> this.threads.inTransaction(transaction(context), () -> {
								context.getBean(AdvisoryLockOperations.class).lock(request);
								return i;
							}))
							.toList();
						this.pgLocks.awaitWaiters(key, 2);
						assertThat(pool.getHikariPoolMXBean().getIdleConnections()).isZero();
						assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(2);
						Future<List<AdvisoryLockDescriptor>> read = this.threads
							.submit(() -> endpoint(context).advisoryLocks().locks());
						assertThat(read.get(HANG_SECONDS, TimeUnit.SECONDS))
							.filteredOn((lock) -> Long.valueOf(key).equals(lock.key()))
							.extracting(AdvisoryLockDescriptor::granted)
							.containsExactly(true, false, false);
						holder.commit();
						for (Future<Integer> waiter : waiters) {
							waiter.get(HANG_SECONDS, TimeUnit.SECONDS);
						}
					}
				});
		}
	}

	@Test
	void showsALimitAsOneEntryWithTheHoldersOfItsPermitsAndItsWaiter() {
		LockRequest limit = LockRequest.of(this.namespace, "tenant").withPermits(2);
		List<Long> permitKeys = List.of(AdvisoryLockKeys.permitSlot(AdvisoryLockKeys.of(this.namespace, "tenant"), 0),
				AdvisoryLockKeys.permitSlot(AdvisoryLockKeys.of(this.namespace, "tenant"), 1));
		this.exposed.run((context) -> {
			AdvisoryLockOperations locks = context.getBean(AdvisoryLockOperations.class);
			CountDownLatch locked = new CountDownLatch(2);
			CountDownLatch release = new CountDownLatch(1);
			List<Future<Object>> calls = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				calls.add(this.threads.inTransaction(transaction(context), () -> {
					locks.lock(limit);
					locked.countDown();
					release.await(HANG_SECONDS, TimeUnit.SECONDS);
					return null;
				}));
			}
			TestThreads.await(locked);
			calls.add(this.threads.inTransaction(transaction(context), () -> {
				locks.lock(limit.withTimeout(PgLocks.HANG_TIMEOUT));
				return null;
			}));
			try {
				// The waiter waits for one permit a slice at a time, and tries them all
				// between slices: read until a read falls inside a slice.
				AdvisoryLocksDescriptor shown = await().atMost(PgLocks.HANG_TIMEOUT)
					.until(() -> endpoint(context).advisoryLocks(),
							(read) -> read.limits().size() == 1 && read.limits().get(0).waiters().size() == 1);
				assertThat(shown.limits()).singleElement().satisfies((entry) -> {
					assertThat(entry.key()).isEqualTo(permitKeys.get(0));
					assertThat(entry.label()).isEqualTo(this.namespace + ":tenant");
					assertThat(entry.permits()).isEqualTo(2);
					assertThat(entry.holders()).extracting(AdvisoryLockDescriptor::key)
						.containsExactlyInAnyOrderElementsOf(permitKeys);
					assertThat(entry.holders()).allMatch(AdvisoryLockDescriptor::granted);
					assertThat(entry.waiters()).singleElement().satisfies((waiting) -> {
						assertThat(waiting.granted()).isFalse();
						assertThat(waiting.key()).isIn(permitKeys);
					});
				});
				assertThat(shown.locks()).extracting(AdvisoryLockDescriptor::key)
					.doesNotContainAnyElementsOf(permitKeys);
			}
			finally {
				release.countDown();
			}
			for (Future<Object> call : calls) {
				call.get(HANG_SECONDS, TimeUnit.SECONDS);
			}
		});
	}

	@Test
	void keyLabelsOfALimitKeepItWhenAPlainLockTakesItsKey() {
		KeyLabels labels = new KeyLabels(8);
		labels.startingLimit("a", LockScope.TRANSACTION, WaitMode.BLOCK, "one", List.of(1L, 2L));
		labels.starting("a", LockScope.TRANSACTION, LockMode.EXCLUSIVE, WaitMode.BLOCK, List.of(1L), List.of("one"));
		assertThat(labels.of(1L)).isEqualTo(new KeyLabels.Label("a:one", 1L, 0, 2));
		assertThat(labels.of(2L)).isEqualTo(new KeyLabels.Label("a:one", 1L, 1, 2));
		labels.starting("a", LockScope.TRANSACTION, LockMode.EXCLUSIVE, WaitMode.BLOCK, List.of(3L), List.of("two"));
		assertThat(labels.of(3L)).isEqualTo(new KeyLabels.Label("a:two", 3L, 0, 1));
	}

	@Test
	void keyLabelsForgetTheLeastRecentlyLockedKeyAndCutLongLabels() {
		KeyLabels labels = new KeyLabels(2);
		labels.starting("a", LockScope.TRANSACTION, LockMode.EXCLUSIVE, WaitMode.BLOCK, List.of(1L), List.of("one"));
		labels.starting("a", LockScope.TRANSACTION, LockMode.EXCLUSIVE, WaitMode.BLOCK, List.of(2L), List.of("two"));
		labels.starting("a", LockScope.TRANSACTION, LockMode.EXCLUSIVE, WaitMode.BLOCK, List.of(1L), List.of("one"));
		labels.starting("a", LockScope.TRANSACTION, LockMode.EXCLUSIVE, WaitMode.BLOCK, List.of(3L),
				List.of("x".repeat(500)));
		assertThat(labels.size()).isEqualTo(2);
		assertThat(labels.labelOf(1L)).isEqualTo("a:one");
		assertThat(labels.labelOf(2L)).isNull();
		assertThat(labels.labelOf(3L)).hasSize(KeyLabels.MAX_LABEL_LENGTH).endsWith("...");
		labels.starting("a", LockScope.TRANSACTION, LockMode.EXCLUSIVE, WaitMode.BLOCK, List.of(4L), List.of("x\ny"));
		assertThat(labels.labelOf(4L)).isEqualTo("a:x\\ny");
	}

	private static TransactionTemplate transaction(AssertableApplicationContext context) {
		return new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
	}

	private static AdvisoryLocksEndpoint endpoint(AssertableApplicationContext context) {
		return context.getBean(AdvisoryLocksEndpoint.class);
	}

}
