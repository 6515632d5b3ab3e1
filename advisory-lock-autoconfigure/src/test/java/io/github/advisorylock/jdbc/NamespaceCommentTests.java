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

package io.github.advisorylock.jdbc;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the namespace comment of the lock statement: {@code pg_stat_activity} shows
 * what a waiting session waits for, and no namespace can break out of the comment.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class NamespaceCommentTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.on(TestDatabase.get().dataSource());

	private final DataSource dataSource = this.fixture.dataSource();

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final TransactionTemplate transaction = this.fixture.transaction();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	@Test
	void waitingSessionShowsItsNamespaceButNoKeyValueInPgStatActivity() throws Exception {
		String namespace = "setup_request-" + UUID.randomUUID();
		String value = "4f1c2a9e-3b7d-4c55-9a2e-8d6f0b1c7e42";
		long key = AdvisoryLockKeys.of(namespace, value);
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key)) {
			Future<?> waiter = this.threads.submit(() -> this.transaction.executeWithoutResult(
					(status) -> this.locks.lock(LockRequest.of(namespace, value).withTimeout(PgLocks.HANG_TIMEOUT))));
			this.pgLocks.awaitWaiters(key, 1);
			assertThat(this.pgLocks.waiterStatement(key)).startsWith("/* advisory-lock " + namespace + " */ ")
				.doesNotContain(value)
				.doesNotContain(Long.toString(key));
			holder.commit();
			waiter.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
	}

	@Test
	void namespaceCannotEndOrNestTheComment() {
		assertThat(LockSql.commentSafe("a*/b")).isEqualTo("a* /b");
		assertThat(LockSql.commentSafe("a/*b")).isEqualTo("a/ *b");
		assertThat(LockSql.commentSafe("/*/")).isEqualTo("/ * /");
		assertThat(LockSql.commentSafe("line\nbreak\u0000")).isEqualTo("line break ");
		for (String hostile : new String[] { "a*/b", "a/*b", "*/ SELECT 1; /*", "*", "/", "?", "ns*", "/ns" }) {
			for (String sql : new String[] { LockSql.JDBC.trySql(LockMode.EXCLUSIVE, 1, hostile),
					LockSql.JDBC.waitSql(LockMode.EXCLUSIVE, hostile) }) {
				String comment = sql.substring(0, sql.indexOf(" */ ") + 3);
				assertThat(comment.substring(2, comment.length() - 2)).as(hostile)
					.doesNotContain("*/")
					.doesNotContain("/*");
			}
		}
	}

	@Test
	void hostileNamespacesStillLockAndRelease() {
		for (String hostile : new String[] { "evil */ SELECT pg_sleep(100); /*", "nested /* comment", "q?mark",
				"new\nline", "*", "/" }) {
			String namespace = hostile + UUID.randomUUID();
			long key = AdvisoryLockKeys.of(namespace, 1);
			this.transaction.executeWithoutResult((status) -> {
				this.locks.lock(LockRequest.of(namespace, 1).withTimeout(Duration.ofSeconds(5)));
				assertThat(this.locks.tryLock(namespace, 1)).isTrue();
				assertThat(this.pgLocks.on(key)).hasSize(1);
			});
			assertThat(this.pgLocks.on(key)).isEmpty();
		}
	}

	@Test
	void aHostileNamespaceStillWaits() throws Exception {
		String namespace = "q?mark */ /* " + UUID.randomUUID();
		long key = AdvisoryLockKeys.of(namespace, 1);
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, key)) {
			Future<?> waiter = this.threads.submit(() -> this.transaction.executeWithoutResult(
					(status) -> this.locks.lock(LockRequest.of(namespace, 1).withTimeout(PgLocks.HANG_TIMEOUT))));
			this.pgLocks.awaitWaiters(key, 1);
			holder.commit();
			waiter.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
	}

}
