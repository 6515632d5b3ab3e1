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
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.testsupport.FreezableRelay;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A JDBC wait cancelled by the template's close (the one place the blocking stack sends a
 * cancel request) cannot reach the pool's next borrower of its connection: pgjdbc's
 * statement returns, even once granted, only after the cancel request it raced with was
 * answered, so the rollback, and the connection's return to the pool, come after it.
 *
 * @author advisory-lock authors
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class CancelledWaitTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private final String namespace = "cancelled-" + UUID.randomUUID();

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterEach
	void stopThreads() {
		this.threads.shutdownNow();
	}

	@Test
	void aWaitTheTemplatesCloseCancelsEndsOnlyOnceItsCancelRequestWasAnswered() throws Exception {
		cancelAWaitThenLendItsConnection(false);
	}

	@Test
	void aWaitWithoutATryFirstThatTheTemplatesCloseCancelsEndsOnlyOnceItsCancelRequestWasAnswered() throws Exception {
		cancelAWaitThenLendItsConnection(true);
	}

	/**
	 * @param foundHeldFirst whether a try finds the key held first, so that the call
	 * waits for it at once
	 */
	private void cancelAWaitThenLendItsConnection(boolean foundHeldFirst) throws Exception {
		long key = AdvisoryLockKeys.of(this.namespace, 7);
		long borrowersKey = AdvisoryLockKeys.of(this.namespace, "the next borrower");
		try (FreezableRelay relay = new FreezableRelay(TestDatabase.get().url());
				HikariDataSource pool = TestDatabase.get().newDataSource(relay.url(), 1);
				LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key);
				LockHolder borrowersHolder = LockHolder.exclusive(TestDatabase.get().dataSource(), borrowersKey)) {
			AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool);
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(pool));
			if (foundHeldFirst) {
				Boolean taken = transaction.execute((status) -> locks.tryLock(this.namespace, 7));
				assertThat(taken).isFalse();
			}
			relay.holdCancelRequests();
			AtomicReference<Thread> waiterThread = new AtomicReference<>();
			CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
				waiterThread.set(Thread.currentThread());
				transaction.executeWithoutResult(
						(status) -> locks.lock(LockRequest.of(this.namespace, 7).withTimeout(HANG.multipliedBy(4))));
			}, this.threads);
			this.pgLocks.awaitWaiters(key, 1);
			assertThat(this.pgLocks.waiterStatement(key)).as("the waiting statement")
				.matches((sql) -> sql.contains(LockSql.KEPT_LOCK_TIMEOUT) == foundHeldFirst);
			// The close blocks until the cancel request it sends is answered.
			this.threads.submit(() -> {
				locks.close();
				return null;
			});
			await().atMost(HANG).until(relay::cancelRequestsHeld, (count) -> count == 1);
			// Granted now, as a wait ends just before its cancel arrives.
			holder.commit();
			CompletableFuture<Integer> borrower = CompletableFuture.supplyAsync(() -> new JdbcTemplate(pool)
				.queryForObject("SELECT 1 FROM pg_advisory_xact_lock(?)", Integer.class, borrowersKey), this.threads);
			// Let the request through once the waiter's statement waits for its answer
			// (pgjdbc's PgStatement.killTimerTask), or once the borrower runs on the
			// connection, which a statement that did not wait would let it do.
			await().atMost(HANG)
				.until(() -> waitsForItsCancel(waiterThread.get())
						|| this.pgLocks.on(borrowersKey).stream().anyMatch((lock) -> !lock.granted()));
			relay.releaseCancelRequests();
			await().atMost(HANG).until(relay::cancelRequestsAnswered, (count) -> count == 1);
			assertThat(waiter).failsWithin(HANG);
			this.pgLocks.awaitWaiters(borrowersKey, 1);
			borrowersHolder.commit();
			assertThat(borrower).succeedsWithin(HANG).isEqualTo(1);
		}
	}

	private static boolean waitsForItsCancel(Thread thread) {
		return thread != null && Arrays.stream(thread.getStackTrace())
			.anyMatch((frame) -> frame.getClassName().equals("org.postgresql.jdbc.PgStatement")
					&& frame.getMethodName().equals("killTimerTask"));
	}

}
