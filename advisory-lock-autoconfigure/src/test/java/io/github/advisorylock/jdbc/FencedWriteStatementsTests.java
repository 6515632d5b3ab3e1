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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.jdbc.FencedWriteStatements.FenceResult;
import io.github.advisorylock.jdbc.FencedWriteStatements.FencedKey;
import io.github.advisorylock.jdbc.LockSessionStatements.SessionIdentity;
import io.github.advisorylock.test.NoAdvisoryLocksLeft;
import io.github.advisorylock.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the fenced write's check against identities that must not pass for a lock's
 * session: the same backend holding the same key in a later transaction, as a server
 * connection that PgBouncer or a pool gave to another client after the lock's transaction
 * ended would, and so a fortiori a new backend with a recycled pid.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class FencedWriteStatementsTests {

	private static final long KEY = 0x1234_5678_9abc_def0L;

	@Test
	void theSessionThatHoldsTheKeyPasses() throws SQLException {
		try (Connection holder = TestDatabase.get().dataSource().getConnection();
				Connection writer = TestDatabase.get().dataSource().getConnection()) {
			holder.setAutoCommit(false);
			writer.setAutoCommit(false);
			SessionIdentity identity = lock(holder, KEY);
			FenceResult result = fence(writer, identity);
			assertThat(result.lockable()).isTrue();
			assertThat(result.lostKey()).isNull();
			writer.rollback();
			holder.rollback();
		}
	}

	@Test
	void aLaterTransactionOfTheSameBackendHoldingTheSameKeyDoesNotPass() throws SQLException {
		try (Connection holder = TestDatabase.get().dataSource().getConnection();
				Connection writer = TestDatabase.get().dataSource().getConnection()) {
			holder.setAutoCommit(false);
			writer.setAutoCommit(false);
			SessionIdentity lockSession = lock(holder, KEY);
			holder.rollback();
			// The backend, reused, holds the key again: same pid, the key granted.
			SessionIdentity reused = lock(holder, KEY);
			assertThat(reused.pid()).isEqualTo(lockSession.pid());
			assertThat(fence(writer, lockSession).lostKey()).isEqualTo(KEY);
			writer.rollback();
			holder.rollback();
		}
	}

	@Test
	void aKeyHeldInAnotherModeDoesNotPass() throws SQLException {
		try (Connection holder = TestDatabase.get().dataSource().getConnection();
				Connection writer = TestDatabase.get().dataSource().getConnection()) {
			holder.setAutoCommit(false);
			writer.setAutoCommit(false);
			SessionIdentity identity = lock(holder, KEY);
			FenceResult result = FencedWriteStatements.fence(writer,
					List.of(new FencedKey(KEY, LockMode.SHARED, identity)), Duration.ofSeconds(30), "fence-test");
			assertThat(result.lostKey()).isEqualTo(KEY);
			writer.rollback();
			holder.rollback();
		}
	}

	/**
	 * A new backend with a recycled pid, in the slot of the lock's and at the same
	 * transaction number (PostgreSQL 18 numbers a new backend's transactions from the
	 * start again), stood for by the lock's pid and virtual id with another start.
	 */
	@Test
	void aBackendWithTheSamePidAndVirtualIdButAnotherStartDoesNotPass() throws SQLException {
		try (Connection holder = TestDatabase.get().dataSource().getConnection();
				Connection writer = TestDatabase.get().dataSource().getConnection()) {
			holder.setAutoCommit(false);
			writer.setAutoCommit(false);
			SessionIdentity current = lock(holder, KEY);
			SessionIdentity recycled = new SessionIdentity(current.pid(), current.virtualTransaction(),
					"2001-01-01 00:00:00+00");
			assertThat(fence(writer, recycled).lostKey()).isEqualTo(KEY);
			writer.rollback();
			holder.rollback();
		}
	}

	private static FenceResult fence(Connection writer, SessionIdentity identity) throws SQLException {
		return FencedWriteStatements.fence(writer, List.of(new FencedKey(KEY, LockMode.EXCLUSIVE, identity)),
				Duration.ofSeconds(30), "fence-test");
	}

	private static SessionIdentity lock(Connection connection, long key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_xact_lock(?), "
				+ "pg_backend_pid(), (SELECT virtualtransaction FROM pg_locks WHERE locktype = 'virtualxid' "
				+ "AND pid = pg_backend_pid() AND virtualxid = virtualtransaction), "
				+ "(SELECT backend_start::text FROM pg_stat_get_activity(pg_backend_pid()))")) {
			statement.setLong(1, key);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return new SessionIdentity(result.getInt(2), result.getString(3), result.getString(4));
			}
		}
	}

}
