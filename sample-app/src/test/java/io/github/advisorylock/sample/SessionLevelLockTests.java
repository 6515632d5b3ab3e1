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

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why the starter takes transaction-level locks only: a session-level lock outlives the
 * ROLLBACK of the transaction that took it, so a pooled connection would carry it to the
 * next borrower, until someone unlocks it.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class SessionLevelLockTests {

	private final TestDatabase database = TestDatabase.get();

	@Test
	void aSessionLevelLockSurvivesRollbackAndEndsOnlyWithUnlock() throws SQLException {
		long key = AdvisoryLockKeys.of("session_level_demo", "job");
		try (Connection holder = connect(); Connection other = connect()) {
			holder.setAutoCommit(false);
			assertThat(query(holder, "SELECT pg_advisory_lock(?) IS NOT NULL", key)).isTrue();
			holder.rollback();
			assertThat(query(other, "SELECT pg_try_advisory_lock(?)", key)).as("free after ROLLBACK").isFalse();
			assertThat(query(holder, "SELECT pg_advisory_unlock(?)", key)).isTrue();
			assertThat(query(other, "SELECT pg_try_advisory_lock(?)", key)).as("free after unlock").isTrue();
			assertThat(query(other, "SELECT pg_advisory_unlock(?)", key)).isTrue();
		}
	}

	@Test
	void aTransactionLevelLockEndsWithRollback() throws SQLException {
		long key = AdvisoryLockKeys.of("session_level_demo", "xact");
		try (Connection holder = connect(); Connection other = connect()) {
			holder.setAutoCommit(false);
			assertThat(query(holder, "SELECT pg_advisory_xact_lock(?) IS NOT NULL", key)).isTrue();
			assertThat(query(other, "SELECT pg_try_advisory_xact_lock(?)", key)).as("free while held").isFalse();
			holder.rollback();
			assertThat(query(other, "SELECT pg_try_advisory_xact_lock(?)", key)).as("free after ROLLBACK").isTrue();
		}
	}

	// Unpooled sessions: closing one ends its session, so a failed assertion cannot leave
	// a session-level lock in a pooled connection for the next test.
	private Connection connect() throws SQLException {
		return DriverManager.getConnection(this.database.url(), this.database.username(), this.database.password());
	}

	private static boolean query(Connection connection, String sql, long key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setLong(1, key);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getBoolean(1);
			}
		}
	}

}
