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

package io.github.advisorylock.interceptor;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of {@link AdvisoryLocked @AdvisoryLocked} in a Spring Boot application against
 * real PostgreSQL: the invariant it protects, and each of its attributes, from several
 * connections at once.
 */
@SpringBootTest(classes = AdvisoryLockedIntegrationTests.Config.class)
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockedIntegrationTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		registry.add("spring.datasource.hikari.maximum-pool-size", () -> "12");
		registry.add("spring.autoconfigure.exclude", BootAutoConfigurations::excludeR2dbc);
		// Generous, so that serialized callers on a loaded machine wait rather than time
		// out; tests of the timeout give their own.
		registry.add("advisory-lock.default-timeout", () -> "30s");
	}

	@Autowired
	private SetupRequests setupRequests;

	@Autowired
	private Keys keys;

	@Autowired
	private Outer outer;

	@Autowired
	private JdbcTemplate jdbc;

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final UUID user = UUID.randomUUID();

	@BeforeEach
	void schema() {
		this.jdbc.execute("""
				CREATE TABLE IF NOT EXISTS it_setup_requests (
				    id uuid PRIMARY KEY, user_id uuid NOT NULL, status text NOT NULL)""");
		this.setupRequests.afterCheck((userId) -> {
		});
	}

	private static long key(String namespace, Object value) {
		return AdvisoryLockKeys.of(namespace, value);
	}

	private int pending(UUID userId) {
		return this.jdbc.queryForObject(
				"SELECT count(*) FROM it_setup_requests WHERE user_id = ? AND status = 'pending'", Integer.class,
				userId);
	}

	private <T> Future<T> async(Callable<T> call) {
		return this.threads.submit(call);
	}

	@Test
	void twoConcurrentCheckThenInsertCallsGiveOneSuccessAndOneRejection() throws Exception {
		CountDownLatch firstChecked = new CountDownLatch(1);
		CountDownLatch releaseFirst = new CountDownLatch(1);
		this.setupRequests.afterCheck((userId) -> {
			if (firstChecked.getCount() > 0) {
				firstChecked.countDown();
				await(releaseFirst);
			}
		});
		Future<Boolean> first = async(() -> this.setupRequests.create(this.user, 1));
		assertThat(firstChecked.await(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		Future<Boolean> second = async(() -> this.setupRequests.create(this.user, 1));
		// The second call waits for the lock while the first sits between its check and
		// its insert.
		this.pgLocks.awaitWaiters(key("setup_request", this.user), 1);
		releaseFirst.countDown();
		assertThat(first.get(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertThat(second.get(HANG_SECONDS, TimeUnit.SECONDS)).isFalse();
		assertThat(pending(this.user)).isOne();
	}

	@Test
	void fiveConcurrentCallsWithALimitOfThreeCreateThree() throws Exception {
		// Widen the window between check and insert, where unserialized calls would
		// overtake each other.
		this.setupRequests.afterCheck((userId) -> this.jdbc.execute("SELECT pg_sleep(0.05)"));
		CyclicBarrier start = new CyclicBarrier(5);
		List<Future<Boolean>> calls = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			calls.add(async(() -> {
				start.await(HANG_SECONDS, TimeUnit.SECONDS);
				return this.setupRequests.create(this.user, 3);
			}));
		}
		int created = 0;
		for (Future<Boolean> call : calls) {
			created += call.get(HANG_SECONDS, TimeUnit.SECONDS) ? 1 : 0;
		}
		assertThat(created).isEqualTo(3);
		assertThat(pending(this.user)).isEqualTo(3);
	}

	@Test
	void aHeldKeyForOneUserDoesNotBlockAnother() throws Exception {
		UUID other = UUID.randomUUID();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
				key("setup_request", this.user))) {
			assertThat(async(() -> this.setupRequests.createOrFailFast(other)).get(HANG_SECONDS, TimeUnit.SECONDS))
				.isTrue();
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.setupRequests.createOrFailFast(this.user));
		}
		assertThat(pending(other)).isOne();
		assertThat(pending(this.user)).isZero();
	}

	@Test
	void timesOutAfterItsTimeoutThenSucceedsOnceTheHolderRollsBack() {
		int bodyRuns = this.setupRequests.bodyRuns();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
				key("setup_request", this.user))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.setupRequests.createWithin200ms(this.user))
				.satisfies((ex) -> assertThat(ex.getTimeout()).hasMillis(200));
			assertThat(this.setupRequests.bodyRuns()).isEqualTo(bodyRuns);
			holder.rollback();
			assertThat(this.setupRequests.createWithin200ms(this.user)).isTrue();
		}
	}

	@Test
	void tryFailsAtOnceWhenHeld() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
				key("setup_request", this.user))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.setupRequests.createOrFailFast(this.user))
				.satisfies((ex) -> assertThat(ex.getTimeout()).isNull());
		}
		assertThat(pending(this.user)).isZero();
	}

	@Test
	void sharedHoldersRunTogetherWhileExclusiveWaits() throws Exception {
		long report = key("report", 7);
		try (LockHolder reader = LockHolder.shared(TestDatabase.get().dataSource(), report)) {
			assertThat(this.keys.readReport(7)).containsExactly(report);
			Future<Set<Long>> writer = async(() -> this.keys.writeReport(7));
			this.pgLocks.awaitWaiters(report, 1);
			reader.commit();
			assertThat(writer.get(HANG_SECONDS, TimeUnit.SECONDS)).containsExactly(report);
		}
	}

	@Test
	void keyExpressionsNameParametersByNameIndexPropertyAndBean() {
		UUID id = UUID.randomUUID();
		assertThat(this.keys.byName(id)).containsExactly(key("by_name", id));
		assertThat(this.keys.byIndex(id)).containsExactly(key("by_index", id));
		assertThat(this.keys.byProperty(new Command(id, 5))).containsExactly(key("by_property", id));
		assertThat(this.keys.byBean(id)).containsExactly(key("by_bean", "tenant-" + id));
	}

	@Test
	void collectionsExpandAndSeveralExpressionsCombine() {
		assertThat(this.keys.collection(List.of(1L, 2L, 2L, 3L))).containsExactlyInAnyOrder(key("collection", 1),
				key("collection", 2), key("collection", 3));
		assertThat(this.keys.transfer(1, 2)).containsExactlyInAnyOrder(key("account", 1), key("account", 2));
		assertThat(this.keys.transfer(2, 2)).containsExactly(key("account", 2));
	}

	@Test
	void aNullKeyFailsNamingTheMethodAndTheBodyDoesNotRun() {
		int bodyRuns = this.keys.bodyRuns();
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> this.keys.byName(null))
			.withMessageContaining("Keys.byName(UUID)")
			.withMessageContaining("key '#id' gave null");
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> this.keys.collection(List.of()))
			.withMessageContaining("Keys.collection(List)")
			.withMessageContaining("gave no value");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> this.keys.collection(java.util.Arrays.asList(1L, null)))
			.withMessageContaining("Keys.collection(List)")
			.withMessageContaining("key '#ids' gave a null element")
			.withNoCause();
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> this.keys.byProperty(null))
			.withMessageContaining("Keys.byProperty(Command)")
			.withMessageContaining("key expression '#command.userId()' failed");
		assertThat(this.keys.bodyRuns()).isEqualTo(bodyRuns);
	}

	@Test
	void anUnsupportedKeyTypeFailsOnceNamingTheMethodAndTheExpression() {
		int bodyRuns = this.keys.bodyRuns();
		UUID id = UUID.randomUUID();
		LocalDate day = LocalDate.of(2026, 11, 30);
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> this.keys.byIdAndDay(id, day))
			.withMessageContaining("Keys.byIdAndDay(UUID, LocalDate)")
			.withMessageContaining("key '#day': Unsupported advisory lock key type java.time.LocalDate")
			.withMessageNotContaining("'#id'")
			// One exception, not one wrapped in another with the same text.
			.withNoCause();
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> this.keys.values(List.of(1L, 2.5d)))
			.withMessageContaining("key '#values': Unsupported advisory lock key type java.lang.Double")
			.withNoCause();
		assertThat(this.keys.bodyRuns()).isEqualTo(bodyRuns);
	}

	@Test
	void aRecordKeyValueFailsNamingTheExpressionAndAskingForItsComponent() {
		int bodyRuns = this.keys.bodyRuns();
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> this.keys.byRecord(new Command(UUID.randomUUID(), 5)))
			.withMessageContaining("Keys.byRecord(Command)")
			.withMessageContaining("key '#command': ")
			.withMessageContaining("name the component in the key expression, for example #cmd.userId()");
		assertThat(this.keys.bodyRuns()).isEqualTo(bodyRuns);
	}

	@Test
	void anExceptionThrownInAKeyExpressionFailsNamingTheMethodAndTheExpressionAndKeepsItsCause() {
		int bodyRuns = this.keys.bodyRuns();
		UUID id = UUID.randomUUID();
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> this.keys.byFailingBean(id))
			.withMessageContaining("Keys.byFailingBean(UUID)")
			.withMessageContaining("key expression '@tenants.failing(#id)' threw IllegalStateException: no tenant for")
			.havingCause()
			.isExactlyInstanceOf(IllegalStateException.class);
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> this.keys.byFailingProperty(new Command(id, -1)))
			.withMessageContaining("Keys.byFailingProperty(Command)")
			.withMessageContaining("key expression '#command.positiveAmount()' threw IllegalArgumentException")
			.havingCause()
			.isExactlyInstanceOf(IllegalArgumentException.class)
			.withMessage("amount must be positive, was -1");
		assertThat(this.keys.bodyRuns()).isEqualTo(bodyRuns);
	}

	@Test
	void withoutTransactionItFailsAndTheBodyDoesNotRun() {
		int bodyRuns = this.setupRequests.bodyRuns();
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.setupRequests.createWithoutTransaction(this.user))
			.withMessageContaining("SetupRequests.createWithoutTransaction(UUID)")
			.withMessageContaining("needs an actual transaction");
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.setupRequests.createWithSupports(this.user));
		assertThat(this.setupRequests.bodyRuns()).isEqualTo(bodyRuns);
		assertThat(pending(this.user)).isZero();
	}

	@Test
	void repeatableReadFailsFastAndWritesNothing() {
		int bodyRuns = this.setupRequests.bodyRuns();
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.setupRequests.createUnderRepeatableRead(this.user))
			.withMessageContaining("needs isolation READ COMMITTED");
		assertThat(this.setupRequests.bodyRuns()).isEqualTo(bodyRuns);
		assertThat(pending(this.user)).isZero();
	}

	@Test
	void aNestedCallForAHeldKeyDoesNotWait() {
		// The inner call only tries the key: it succeeds because the outer call's session
		// already holds it.
		Outer.Observation observation = this.outer.lockThenCallInner(this.user);
		assertThat(observation.outerHolders()).containsExactly(observation.pid());
		assertThat(observation.innerSucceeded()).isTrue();
	}

	@Test
	void moreDistinctKeysThanMaxKeysFailBeforeTheBodyRuns() {
		int bodyRuns = this.keys.bodyRuns();
		List<Long> ids = java.util.stream.LongStream.rangeClosed(1, 65).boxed().toList();
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> this.keys.collection(ids))
			.withMessageContaining("Keys.collection(List)")
			.withMessageContaining("key '#ids': ")
			.withMessageContaining("more than 64 distinct keys")
			.withNoCause();
		assertThat(this.keys.bodyRuns()).isEqualTo(bodyRuns);
		assertThat(this.keys.collection(ids.subList(0, 64))).hasSize(64);
	}

	@Test
	void theLockIsHeldByTheTransactionsOwnBackend() {
		UUID id = UUID.randomUUID();
		Set<Long> held = this.keys.byName(id);
		assertThat(held).containsExactly(key("by_name", id));
		assertThat(this.keys.lastPid()).isPositive();
		assertThat(this.keys.lastHolders()).containsExactly(this.keys.lastPid());
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(HANG_SECONDS, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Not released in time");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Config {

		@Bean
		SetupRequests setupRequests(JdbcTemplate jdbc) {
			return new SetupRequests(jdbc);
		}

		@Bean
		Keys keys(JdbcTemplate jdbc) {
			return new Keys(jdbc);
		}

		@Bean
		Inner inner() {
			return new Inner();
		}

		@Bean
		Outer outer(Inner inner, JdbcTemplate jdbc) {
			return new Outer(inner, jdbc);
		}

		@Bean
		Tenants tenants() {
			return new Tenants();
		}

	}

	/**
	 * The invariant under test: at most {@code limit} pending setup requests per user,
	 * checked then inserted.
	 */
	static class SetupRequests {

		private final JdbcTemplate jdbc;

		private final AtomicInteger bodyRuns = new AtomicInteger();

		private volatile Consumer<UUID> afterCheck = (userId) -> {
		};

		SetupRequests(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		// State is read and set through methods: fields of a class-based proxy are not
		// the target's.
		public void afterCheck(Consumer<UUID> afterCheck) {
			this.afterCheck = afterCheck;
		}

		public int bodyRuns() {
			return this.bodyRuns.get();
		}

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#userId")
		public boolean create(UUID userId, int limit) {
			return checkThenInsert(userId, limit);
		}

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#userId", waitMode = WaitMode.TRY)
		public boolean createOrFailFast(UUID userId) {
			return checkThenInsert(userId, 1);
		}

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#userId", timeout = "200ms")
		public boolean createWithin200ms(UUID userId) {
			return checkThenInsert(userId, 1);
		}

		@AdvisoryLocked(namespace = "setup_request", key = "#userId")
		public boolean createWithoutTransaction(UUID userId) {
			return checkThenInsert(userId, 1);
		}

		@Transactional(propagation = Propagation.SUPPORTS)
		@AdvisoryLocked(namespace = "setup_request", key = "#userId")
		public boolean createWithSupports(UUID userId) {
			return checkThenInsert(userId, 1);
		}

		@Transactional(isolation = Isolation.REPEATABLE_READ)
		@AdvisoryLocked(namespace = "setup_request", key = "#userId")
		public boolean createUnderRepeatableRead(UUID userId) {
			return checkThenInsert(userId, 1);
		}

		private boolean checkThenInsert(UUID userId, int limit) {
			this.bodyRuns.incrementAndGet();
			Integer pending = this.jdbc.queryForObject(
					"SELECT count(*) FROM it_setup_requests WHERE user_id = ? AND status = 'pending'", Integer.class,
					userId);
			this.afterCheck.accept(userId);
			if (pending >= limit) {
				return false;
			}
			this.jdbc.update("INSERT INTO it_setup_requests (id, user_id, status) VALUES (?, ?, 'pending')",
					UUID.randomUUID(), userId);
			return true;
		}

	}

	/**
	 * Methods that return the keys their own transaction holds, for each form of key
	 * expression.
	 */
	static class Keys {

		private final JdbcTemplate jdbc;

		private final AtomicInteger bodyRuns = new AtomicInteger();

		private volatile int lastPid;

		private volatile List<Integer> lastHolders;

		Keys(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		public int bodyRuns() {
			return this.bodyRuns.get();
		}

		public int lastPid() {
			return this.lastPid;
		}

		public List<Integer> lastHolders() {
			return this.lastHolders;
		}

		@Transactional
		@AdvisoryLocked(namespace = "by_name", key = "#id")
		public Set<Long> byName(UUID id) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "by_index", key = "#p0")
		public Set<Long> byIndex(UUID id) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "by_property", key = "#command.userId()")
		public Set<Long> byProperty(Command command) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "by_bean", key = "@tenants.of(#id)")
		public Set<Long> byBean(UUID id) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "by_day", key = { "#id", "#day" })
		public Set<Long> byIdAndDay(UUID id, LocalDate day) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "by_record", key = "#command")
		public Set<Long> byRecord(Command command) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "collection", key = "#values")
		public Set<Long> values(List<?> values) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "by_bean", key = "@tenants.failing(#id)")
		public Set<Long> byFailingBean(UUID id) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "by_property", key = "#command.positiveAmount()")
		public Set<Long> byFailingProperty(Command command) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "collection", key = "#ids")
		public Set<Long> collection(List<Long> ids) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "account", key = { "#from", "#to" })
		public Set<Long> transfer(long from, long to) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "report", key = "#id", mode = LockMode.SHARED, waitMode = WaitMode.TRY)
		public Set<Long> readReport(long id) {
			return held();
		}

		@Transactional
		@AdvisoryLocked(namespace = "report", key = "#id")
		public Set<Long> writeReport(long id) {
			return held();
		}

		/**
		 * Return the advisory keys granted to this transaction's own backend, and note
		 * who holds them.
		 */
		private Set<Long> held() {
			this.bodyRuns.incrementAndGet();
			this.lastPid = this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
			List<Long> keys = this.jdbc.queryForList("SELECT " + PgLocks.KEY_EXPRESSION + " FROM pg_locks "
					+ "WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()", Long.class);
			this.lastHolders = this.jdbc
				.queryForList(
						"SELECT DISTINCT pid FROM pg_locks WHERE locktype = 'advisory' " + "AND granted AND "
								+ PgLocks.KEY_EXPRESSION + " = ANY (?)",
						Integer.class, (Object) keys.toArray(Long[]::new));
			return Set.copyOf(keys);
		}

	}

	record Command(UUID userId, int amount) {

		public int positiveAmount() {
			if (this.amount <= 0) {
				throw new IllegalArgumentException("amount must be positive, was " + this.amount);
			}
			return this.amount;
		}

	}

	static class Tenants {

		public String of(UUID id) {
			return "tenant-" + id;
		}

		public String failing(UUID id) {
			throw new IllegalStateException("no tenant for " + id);
		}

	}

	static class Outer {

		private final Inner inner;

		private final JdbcTemplate jdbc;

		Outer(Inner inner, JdbcTemplate jdbc) {
			this.inner = inner;
			this.jdbc = jdbc;
		}

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#userId")
		public Observation lockThenCallInner(UUID userId) {
			int pid = this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
			List<Integer> holders = new PgLocks(TestDatabase.get().dataSource())
				.on(AdvisoryLockKeys.of("setup_request", userId))
				.stream()
				.map(PgLocks.AdvisoryLock::pid)
				.toList();
			return new Observation(pid, holders, this.inner.tryAgain(userId));
		}

		record Observation(int pid, List<Integer> outerHolders, boolean innerSucceeded) {

		}

	}

	static class Inner {

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#userId", waitMode = WaitMode.TRY)
		public boolean tryAgain(UUID userId) {
			return true;
		}

	}

}
