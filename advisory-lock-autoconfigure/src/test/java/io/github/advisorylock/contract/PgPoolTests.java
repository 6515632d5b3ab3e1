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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.contract.PgPoolTopology.Setup;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.pglocks.AdvisoryLockInspector;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.LockActivity;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of the locks through a real pgpool-II with load balancing on, in front of a
 * primary and its streaming standby, in the configurations users run (docs/pgpool.md).
 * Whatever pgpool-II balances here goes to the standby (the primary's weight is 0), so
 * that a statement it balances is known to land there. Where the configuration keeps the
 * library's statements on the primary, a lock is taken there and excludes, and the
 * transaction's later reads are the primary's; where it balances them, the lock is
 * refused with the standby's message and nothing is taken on the standby: never a lock
 * silently taken where it excludes nobody.
 */
@ExtendWith(OutputCaptureExtension.class)
class PgPoolTests {

	@RegisterExtension
	static final PgPoolTopology topology = new PgPoolTopology();

	private final String namespace = "pgpool-" + UUID.randomUUID();

	private static PgPool pgpool(Setup setup) {
		return topology.pgpool(setup);
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private static int portOf(JdbcTemplate jdbc) {
		Integer port = jdbc.queryForObject("SELECT inet_server_port()", Integer.class);
		assertThat(port).isNotNull();
		return port;
	}

	@ParameterizedTest
	@EnumSource(names = { "DEFAULTS", "SEQUENCES_LISTED", "COMMENTS_IGNORED_LOCKS_LISTED" })
	void aLockIsTakenOnThePrimaryExcludesAndTheTransactionReadsThePrimary(Setup setup) throws Exception {
		try (HikariDataSource through = pgpool(setup).newDataSource(4);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(through)) {
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(through));
			JdbcTemplate jdbc = new JdbcTemplate(through);
			assertThat(portOf(jdbc)).as("a read outside a lock, balanced").isEqualTo(topology.standbyPort());
			int readAfterTheLock = transaction.execute((status) -> {
				locks.lock(LockRequest.of(this.namespace, 1).withWaitMode(WaitMode.TRY));
				assertThat(new PgLocks(topology.primary()).on(key(1))).as("the lock on the primary").hasSize(1);
				assertThat(new PgLocks(topology.standby()).all()).as("locks on the standby").isEmpty();
				assertThat(CompletableFuture
					.supplyAsync(() -> transaction.execute((other) -> locks.tryLock(this.namespace, 1))))
					.as("another session through pgpool-II granted the key")
					.succeedsWithin(PgLocks.HANG_TIMEOUT)
					.isEqualTo(false);
				// The check of a check-then-insert: it must not read a standby that lags.
				return portOf(jdbc);
			});
			assertThat(readAfterTheLock).as("a read after the lock, in its transaction")
				.isEqualTo(topology.primaryPort());
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "DEFAULTS", "SEQUENCES_LISTED", "COMMENTS_IGNORED_LOCKS_LISTED" })
	void aWaitWaitsOnThePrimary(Setup setup) throws Exception {
		try (HikariDataSource through = pgpool(setup).newDataSource(4);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(through)) {
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(through));
			CompletableFuture<Void> waiter;
			try (LockHolder holder = LockHolder.exclusive(topology.primary(), key(1))) {
				waiter = CompletableFuture.runAsync(() -> transaction.executeWithoutResult(
						(status) -> locks.lock(LockRequest.of(this.namespace, 1).withTimeout(PgLocks.HANG_TIMEOUT))));
				new PgLocks(topology.primary()).awaitWaiters(key(1), 1);
			}
			waiter.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "DEFAULTS", "SEQUENCES_LISTED", "COMMENTS_IGNORED_LOCKS_LISTED" })
	void anInvocationScopedLockIsHeldOnThePrimaryAndItsTokenIssued(Setup setup) throws Exception {
		try (HikariDataSource through = pgpool(setup).newDataSource(4);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(through)) {
			Long token = locks.execute(LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION), (handle) -> {
				assertThat(new PgLocks(topology.primary()).on(key(1))).as("the lock on the primary").hasSize(1);
				assertThat(new PgLocks(topology.standby()).all()).as("locks on the standby").isEmpty();
				return handle.fencingToken();
			}).value();
			assertThat(token).isPositive();
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "DEFAULTS", "SEQUENCES_LISTED", "COMMENTS_IGNORED_LOCKS_LISTED" })
	void theInspectorReadsThePrimarysLocks(Setup setup) throws Exception {
		try (HikariDataSource through = pgpool(setup).newDataSource(4);
				LockHolder holder = LockHolder.exclusive(topology.primary(), key(1))) {
			List<LockActivity> locks = new AdvisoryLockInspector(through, false).locks().locks();
			assertThat(locks).as("the locks the endpoint shows").extracting(LockActivity::key).contains(key(1));
		}
	}

	/**
	 * Why the statements keep their own leading comment rather than pgpool-II's
	 * {@code /*NO LOAD BALANCE*}{@code /}: where comments are respected, any leading
	 * comment keeps a statement off the standby; where they are ignored, that one is
	 * ignored too (docs/pgpool.md).
	 */
	@ParameterizedTest
	@EnumSource(names = { "SEQUENCES_LISTED", "COMMENTS_IGNORED" })
	void aLeadingCommentKeepsAStatementOnThePrimaryOnlyWhereCommentsAreRespected(Setup setup) throws Exception {
		try (HikariDataSource through = pgpool(setup).newDataSource(1)) {
			JdbcTemplate jdbc = new JdbcTemplate(through);
			int expected = (setup == Setup.COMMENTS_IGNORED) ? topology.standbyPort() : topology.primaryPort();
			for (String comment : List.of("/* advisory-lock orders */", "/*NO LOAD BALANCE*/")) {
				assertThat(jdbc.queryForObject(comment + " SELECT inet_server_port()", Integer.class)).as(comment)
					.isEqualTo(expected);
			}
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "DEFAULTS", "SEQUENCES_LISTED", "COMMENTS_IGNORED_LOCKS_LISTED" })
	void theStartupCheckProvesThatTheLocksExclude(Setup setup, CapturedOutput output) throws Exception {
		try (HikariDataSource through = pgpool(setup).newDataSource(4);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(through)) {
			locks.checkExclusion(PgLocks.HANG_TIMEOUT);
		}
		assertThat(output).contains("exclude: a second session was refused a key a first one held");
	}

	@Test
	void whereTheLocksAreBalancedTheStartupCheckFails() throws Exception {
		try (HikariDataSource through = pgpool(Setup.COMMENTS_IGNORED).newDataSource(4);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(through)) {
			assertThatIllegalStateException().isThrownBy(() -> locks.checkExclusion(PgLocks.HANG_TIMEOUT))
				.withMessageContaining("the first session was given a server in recovery (a standby)");
		}
	}

	@Test
	void whereTheLocksAreBalancedTheyAreRefusedWithTheStandbysMessageAndTakeNothing() throws Exception {
		try (HikariDataSource through = pgpool(Setup.COMMENTS_IGNORED).newDataSource(4);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(through)) {
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(through));
			for (WaitMode waitMode : List.of(WaitMode.BLOCK, WaitMode.TRY)) {
				transaction.executeWithoutResult((status) -> {
					assertThatExceptionOfType(LockTransactionException.class)
						.isThrownBy(() -> locks.lock(LockRequest.of(this.namespace, 1)
							.withWaitMode(waitMode)
							.withTimeout((waitMode == WaitMode.BLOCK) ? PgLocks.HANG_TIMEOUT : null)))
						.withMessageContaining("was asked of a server in recovery");
					assertThat(new PgLocks(topology.standby()).all()).as("locks on the standby").isEmpty();
					status.setRollbackOnly();
				});
			}
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> locks.execute(LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION),
						(handle) -> "ran"))
				.withMessageContaining("was asked of a server in recovery");
		}
	}

}
