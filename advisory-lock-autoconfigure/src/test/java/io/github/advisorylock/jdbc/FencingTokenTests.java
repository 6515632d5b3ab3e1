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
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of {@link LockHandle#fencingToken()} from a user's view: each holder of a key
 * gets a number greater than every earlier holder's, on this instance or another, after a
 * loss too, and a holder that lost its lock gets none at all.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class FencingTokenTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	/** No heartbeat finds a terminated session before the token's own check does. */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(2)
		.withLockSettings((locks) -> locks.setHeartbeat(Duration.ofHours(1)));

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	private final TransactionTemplate transaction = this.fixture.transaction();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "fenced-" + UUID.randomUUID();

	private LockRequest invocation() {
		return LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION).withTimeout(PgLocks.HANG_TIMEOUT);
	}

	private long key() {
		return AdvisoryLockKeys.of(this.namespace, 1);
	}

	/** Another instance: a template of its own, with its own pool of lock sessions. */
	private AdvisoryLockTemplate otherInstance() {
		AdvisoryLockTemplate other = new AdvisoryLockTemplate(this.fixture.dataSource());
		other.setHeartbeat(Duration.ofHours(1));
		return other;
	}

	private long tokenOnAnotherThread(AdvisoryLockTemplate template) {
		try {
			return this.threads.submit(() -> template.execute(invocation(), LockHandle::fencingToken).value())
				.get(HANG_SECONDS, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new AssertionError("The other holder got no token", ex);
		}
	}

	@Test
	void holdAnswersTheSameTokenEachTime() {
		long[] tokens = this.locks.execute(invocation(), (handle) -> {
			long first = handle.fencingToken();
			return new long[] { first, handle.fencingToken(), this.locks.currentHandle().fencingToken() };
		}).value();
		assertThat(tokens[0]).isPositive();
		assertThat(tokens).containsOnly(tokens[0]);
		// Handed out after its transaction committed.
		assertThat(this.fixture.jdbc().queryForObject("SELECT txid_status(?)", String.class, tokens[0]))
			.isEqualTo("committed");
	}

	@Test
	void reentrantCallAnswersTheEnclosingHoldsToken() {
		long[] tokens = this.locks
			.execute(invocation(),
					(outer) -> new long[] { outer.fencingToken(),
							this.locks.execute(invocation(), LockHandle::fencingToken).value() })
			.value();
		assertThat(tokens[1]).isEqualTo(tokens[0]);
	}

	@Test
	void laterHoldersGetGreaterTokensOnThisInstanceAndAnother() throws Exception {
		try (AdvisoryLockTemplate other = otherInstance()) {
			long first = this.locks.execute(invocation(), LockHandle::fencingToken).value();
			long second = tokenOnAnotherThread(other);
			long third = this.locks.execute(invocation(), LockHandle::fencingToken).value();
			assertThat(second).isGreaterThan(first);
			assertThat(third).isGreaterThan(second);
		}
	}

	@Test
	void holderAfterALossGetsAGreaterToken() throws Exception {
		try (AdvisoryLockTemplate other = otherInstance()) {
			long[] tokens = new long[2];
			// The first holder's session is terminated while it holds the lock: its call
			// ends with the loss, which its rollback finds.
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> this.locks.execute(invocation(), (handle) -> {
					tokens[0] = handle.fencingToken();
					this.pgLocks.terminateHolderOf(key());
					tokens[1] = tokenOnAnotherThread(other);
					return null;
				}));
			assertThat(tokens[1]).isGreaterThan(tokens[0]);
		}
	}

	@Test
	void holderThatLostItsLockGetsNoTokenAfterItsSuccessorsWhenItsMarkerWasTaken() throws Exception {
		try (AdvisoryLockTemplate other = otherInstance()) {
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> this.locks.execute(invocation(), (handle) -> {
					// A fenced write takes the session's marker, which the token's check
					// then finds free: no heartbeat has seen the loss (one per hour).
					this.transaction
						.executeWithoutResult((status) -> this.locks.lock(LockRequest.of(this.namespace, 1)));
					assertThat(this.pgLocks.markers()).hasSize(1);
					this.pgLocks.terminateHolderOf(key());
					tokenOnAnotherThread(other);
					assertThat(handle.isLost()).isFalse();
					assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::fencingToken);
					assertThat(handle.isLost()).isTrue();
					return null;
				}));
		}
	}

	@Test
	void holderThatLostItsLockBeforeAnyMarkerGetsNoToken() throws Exception {
		try (AdvisoryLockTemplate other = otherInstance()) {
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> this.locks.execute(invocation(), (handle) -> {
					this.pgLocks.terminateHolderOf(key());
					tokenOnAnotherThread(other);
					assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::fencingToken);
					return null;
				}));
		}
	}

	@Test
	void transactionScopedLockHasNoToken() {
		assertThatIllegalStateException().isThrownBy(() -> this.transaction.execute(
				(status) -> this.locks.execute(LockRequest.of(this.namespace, 1), LockHandle::fencingToken).value()))
			.withMessageContaining("scope = LockScope.INVOCATION");
	}

	@Test
	void handleAskedAfterItsCallEndedGivesNoToken() {
		LockHandle handle = this.locks.execute(invocation(), (held) -> held).value();
		assertThatIllegalStateException().isThrownBy(handle::fencingToken)
			.withMessageContaining("ask for it inside the locked call");
	}

	@Test
	void tokensTransactionWritesWalSoThatPostgresqlFlushesItsCommitBeforeTheTokenIsGiven() {
		JdbcTemplate jdbc = this.fixture.jdbc();
		long written = this.transaction.execute((status) -> {
			String before = jdbc.queryForObject("SELECT pg_current_wal_insert_lsn()::text", String.class);
			jdbc.queryForMap(FenceSql.TOKEN, 0);
			return jdbc.queryForObject("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ?::pg_lsn)::bigint",
					Long.class, before);
		});
		assertThat(written).isPositive();
	}

	@Test
	void tokenStatementRaisesSynchronousCommitWhereTheConnectionTurnedItOff() {
		JdbcTemplate jdbc = this.fixture.jdbc();
		String synchronousCommit = this.transaction.execute((status) -> {
			jdbc.execute("SET LOCAL synchronous_commit = off");
			// A marker nobody holds: the check finds it free, and no token is given.
			assertThat(jdbc.queryForMap(FenceSql.TOKEN, 0)).containsEntry("token", null);
			return jdbc.queryForObject("SHOW synchronous_commit", String.class);
		});
		assertThat(synchronousCommit).isEqualTo("on");
	}

}
