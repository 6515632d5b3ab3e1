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
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.sql.FenceSql;
import io.github.advisorylock.core.sql.FenceSql.FenceResult;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of the fenced write's check: it passes while the lock's transaction lives, and
 * not for a later transaction of the same backend holding the same key, as a server
 * connection that PgBouncer or a pool gave to another client after the lock's transaction
 * ended would (and so a fortiori not for a new backend with a recycled pid).
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class FencedWriteStatementsTests {

	private static final long KEY = 0x1234_5678_9abc_def0L;

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@Test
	void theSessionThatHoldsTheKeyPasses() throws SQLException {
		try (Connection holder = TestDatabase.get().dataSource().getConnection();
				Connection writer = TestDatabase.get().dataSource().getConnection()) {
			holder.setAutoCommit(false);
			writer.setAutoCommit(false);
			SessionMarker marker = lock(holder, KEY);
			FenceResult result = fence(writer, marker);
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
			SessionMarker lockSession = lock(holder, KEY);
			holder.rollback();
			// The backend, reused, holds the key again, and a marker of its own.
			lock(holder, KEY);
			assertThat(fence(writer, lockSession).lostKey()).isEqualTo(KEY);
			writer.rollback();
			holder.rollback();
		}
	}

	@Test
	void theMarkerIsATwoIntLockInItsOwnSpaceThatTheTestsTellFromFences() throws SQLException {
		try (Connection holder = TestDatabase.get().dataSource().getConnection()) {
			holder.setAutoCommit(false);
			lock(holder, KEY);
			assertThat(PgLocks.MARKER_SPACE).isEqualTo(FenceSql.MARKER_SPACE);
			assertThat(this.pgLocks.markers()).singleElement()
				.satisfies((marker) -> assertThat(marker.granted()).isTrue());
			assertThat(this.pgLocks.fences()).isEmpty();
			holder.rollback();
		}
	}

	@Test
	void aWriterInAnotherDatabaseThanTheLockIsRefusedWithTheReason() throws SQLException {
		try (Connection holder = TestDatabase.get().dataSource().getConnection();
				Connection writer = TestDatabase.get().dataSource().getConnection()) {
			holder.setAutoCommit(false);
			writer.setAutoCommit(false);
			SessionMarker marker = lock(holder, KEY);
			SessionMarker elsewhere = new SessionMarker(marker.marker(), "another_database");
			assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> fence(writer, elsewhere))
				.withMessageContaining("another_database")
				.withMessageContaining("same database");
			writer.rollback();
			holder.rollback();
		}
	}

	private static FenceResult fence(Connection writer, SessionMarker marker) throws SQLException {
		return JdbcFencedWriteStatements.fence(writer, List.of(KEY), List.of(marker), Duration.ofSeconds(30),
				LockRequest.of("fence-test", KEY));
	}

	private static SessionMarker lock(Connection connection, long key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
			statement.setLong(1, key);
			statement.executeQuery().close();
		}
		return JdbcLockSessionStatements.mark(connection);
	}

}
