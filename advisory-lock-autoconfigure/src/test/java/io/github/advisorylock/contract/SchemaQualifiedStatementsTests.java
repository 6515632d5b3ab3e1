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

package io.github.advisorylock.contract;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.pglocks.AdvisoryLockInspector;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.LockActivity;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that the statements the JDBC stack sends name every function, operator, type and
 * relation in {@code pg_catalog}, so that no {@code search_path} shadows them: each path
 * runs on {@link ShadowedDatabase}, where an unqualified lock function locks nothing and
 * any other unqualified name fails, and still excludes a session that holds the key.
 */
@ExtendWith({ NoAdvisoryLocksLeft.class, OutputCaptureExtension.class })
class SchemaQualifiedStatementsTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	private static HikariDataSource pool;

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.on(() -> pool)
		.withLockSettings((locks) -> locks.setHolderDiagnosis(true));

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final DataSource outside = ShadowedDatabase.clean();

	private final PgLocks pgLocks = new PgLocks(this.outside);

	private final String namespace = "qualified-" + UUID.randomUUID();

	@BeforeAll
	static void openPool() {
		pool = ShadowedDatabase.shadowed(4);
	}

	@AfterAll
	static void closePool() {
		pool.close();
	}

	private AdvisoryLockTemplate locks() {
		return this.fixture.locks();
	}

	private TransactionTemplate transaction() {
		return this.fixture.transaction();
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private <T> T inTransaction(Supplier<T> work) {
		return transaction().execute((status) -> work.get());
	}

	@Test
	void unqualifiedNamesAreShadowedThere() {
		JdbcTemplate shadowed = new JdbcTemplate(pool);
		try (LockHolder holder = LockHolder.exclusive(this.outside, key(1))) {
			// A stub's answer: the key another session holds is "taken".
			Boolean taken = inTransaction(
					() -> shadowed.queryForObject("SELECT pg_try_advisory_xact_lock(?)", Boolean.class, key(1)));
			assertThat(taken).isTrue();
		}
		for (String[] shadow : new String[][] {
				{ "SELECT current_setting('lock_timeout')", "function current_setting" },
				{ "SELECT 1 = 1", "operator =" }, { "SELECT '1'::int4", "type int4" },
				{ "SELECT pid FROM pg_locks", "relation pg_locks" },
				{ "SELECT count(*) FROM (VALUES (1)) AS v", "aggregate count" } }) {
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> shadowed.queryForList(shadow[0]))
				.withMessageContaining(ShadowedDatabase.SHADOWED + shadow[1]);
		}
	}

	@Test
	void triesFindTheKeysHeldAndWaitsTakeThemInEitherMode() throws Exception {
		for (LockMode mode : LockMode.values()) {
			try (LockHolder holder = LockHolder.exclusive(this.outside, key(1))) {
				for (LockRequest tried : List.of(LockRequest.of(this.namespace, 1),
						LockRequest.of(this.namespace, 2, 1))) {
					assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> inTransaction(() -> {
						locks().lock(tried.withMode(mode).withWaitMode(WaitMode.TRY));
						return null;
					}))
						.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
							.containsExactly(holder.pid()));
				}
				Future<List<PgLocks.AdvisoryLock>> waited = this.threads.submit(() -> inTransaction(() -> {
					locks().lock(LockRequest.of(this.namespace, 2, 1).withMode(mode).withTimeout(PgLocks.HANG_TIMEOUT));
					return this.pgLocks.on(key(1));
				}));
				this.pgLocks.awaitWaiters(key(1), 1);
				holder.rollback();
				assertThat(waited.get(HANG_SECONDS, TimeUnit.SECONDS)).singleElement()
					.satisfies((lock) -> assertThat(lock.mode())
						.isEqualTo((mode == LockMode.SHARED) ? "ShareLock" : "ExclusiveLock"));
			}
		}
	}

	@Test
	void aKeyFoundHeldIsWaitedForAtOnceInEitherModeKeepingTheLockTimeout() throws Exception {
		for (LockMode mode : LockMode.values()) {
			// The usual 0 (none), and another value.
			String lockTimeout = (mode == LockMode.SHARED) ? "0" : "7s";
			try (LockHolder holder = LockHolder.exclusive(this.outside, key(1))) {
				assertThat(inTransaction(() -> locks().tryLock(this.namespace, 1))).isFalse();
				Future<List<Object>> waited = this.threads.submit(() -> inTransaction(() -> {
					this.fixture.jdbc().execute("SET LOCAL lock_timeout = '" + lockTimeout + "'");
					locks().lock(LockRequest.of(this.namespace, 1).withMode(mode).withTimeout(PgLocks.HANG_TIMEOUT));
					return List.of(this.pgLocks.on(key(1)), this.fixture.jdbc()
						.queryForObject("SELECT pg_catalog.current_setting('lock_timeout')", String.class));
				}));
				this.pgLocks.awaitWaiters(key(1), 1);
				assertThat(this.pgLocks.waiterStatement(key(1))).contains(LockSql.KEPT_LOCK_TIMEOUT);
				holder.rollback();
				List<Object> seen = waited.get(HANG_SECONDS, TimeUnit.SECONDS);
				assertThat(seen.get(0)).asList()
					.singleElement()
					.satisfies((lock) -> assertThat(((PgLocks.AdvisoryLock) lock).mode())
						.isEqualTo((mode == LockMode.SHARED) ? "ShareLock" : "ExclusiveLock"));
				assertThat(seen.get(1)).isEqualTo(lockTimeout);
			}
		}
	}

	@Test
	void aTransactionAboveReadCommittedIsRefusedWithItsLevel() {
		assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> inTransaction(() -> {
			this.fixture.jdbc().execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
			locks().lock(this.namespace, 1);
			return null;
		})).withMessageContaining("runs repeatable read");
	}

	@Test
	void anInvocationScopedLockWaitsFencesWritesAndIssuesATokenThere() throws Exception {
		LockRequest request = LockRequest.of(this.namespace, 1)
			.withScope(LockScope.INVOCATION)
			.withTimeout(PgLocks.HANG_TIMEOUT);
		try (LockHolder holder = LockHolder.exclusive(this.outside, key(1))) {
			Future<Long> token = this.threads.submit(() -> locks().execute(request, (handle) -> {
				List<PgLocks.AdvisoryLock> fences = inTransaction(() -> {
					locks().lock(this.namespace, 1);
					return this.pgLocks.fences();
				});
				assertThat(fences).extracting(PgLocks.AdvisoryLock::key).containsExactly(key(1));
				return handle.fencingToken();
			}).value());
			this.pgLocks.awaitWaiters(key(1), 1);
			holder.rollback();
			assertThat(token.get(HANG_SECONDS, TimeUnit.SECONDS)).isPositive();
		}
	}

	@Test
	void aLimitTriesAndWaitsForItsPermits() throws Exception {
		long key = key("tenant");
		long[] slots = { AdvisoryLockKeys.permitSlot(key, 0), AdvisoryLockKeys.permitSlot(key, 1) };
		LockRequest limit = LockRequest.of(this.namespace, "tenant").withPermits(2);
		try (LockHolder holder = LockHolder.exclusive(this.outside, slots)) {
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> inTransaction(() -> {
				locks().lock(limit.withWaitMode(WaitMode.TRY));
				return null;
			})).withMessageEndingWith("all 2 permits of the limit are held");
			Future<?> waited = this.threads.submit(() -> inTransaction(() -> {
				locks().lock(limit.withTimeout(PgLocks.HANG_TIMEOUT));
				return null;
			}));
			this.pgLocks.await("a waiter for a permit", (locks) -> locks.stream()
				.anyMatch((lock) -> !lock.granted() && (lock.key() == slots[0] || lock.key() == slots[1])));
			holder.rollback();
			waited.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
	}

	@Test
	void theStartupCheckProvesExclusionThere(CapturedOutput output) {
		locks().checkExclusion(PgLocks.HANG_TIMEOUT);
		assertThat(output).contains("Advisory locks on DataSource 'dataSource' exclude: a second session was refused");
	}

	@Test
	void theInspectorReadsTheLocksThere() {
		try (LockHolder holder = LockHolder.exclusive(this.outside, key(1))) {
			List<LockActivity> locks = new AdvisoryLockInspector(pool, true).locks().locks();
			assertThat(locks).filteredOn((lock) -> Long.valueOf(key(1)).equals(lock.key()))
				.extracting(LockActivity::pid)
				.containsExactly(holder.pid());
		}
	}

}
