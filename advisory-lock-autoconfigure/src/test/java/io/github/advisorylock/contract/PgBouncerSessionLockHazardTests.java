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

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgBouncer;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why session-level advisory locks are unsafe behind PgBouncer's transaction pooling,
 * reproduced: a session lock belongs to the server connection, which PgBouncer hands to
 * another client as soon as the statement's transaction ends. The clients here share
 * PgBouncer's {@value PgBouncer#ONE_SERVER_CONNECTION} pool of one server connection,
 * which makes deterministic what a larger pool does by chance.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class PgBouncerSessionLockHazardTests {

	private PgBouncer pgBouncer;

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final long key = AdvisoryLockKeys.of("hazard-" + UUID.randomUUID(), "report");

	/**
	 * In {@code @BeforeEach}: Surefire reports each test skipped, with the message, where
	 * PgBouncer is missing.
	 */
	@BeforeEach
	void startPgBouncer() {
		this.pgBouncer = PgBouncer.get();
	}

	@AfterEach
	void releaseWhatTheSharedServerSessionStillHolds() throws SQLException {
		if (this.pgBouncer == null) {
			return;
		}
		try (Connection any = this.pgBouncer.connect(PgBouncer.ONE_SERVER_CONNECTION);
				Statement statement = any.createStatement()) {
			statement.execute("SELECT pg_advisory_unlock_all()");
		}
	}

	@Test
	void aSessionLockTakenByOneClientIsGrantedToAnotherClientToo() throws SQLException {
		try (Connection first = direct(); Connection second = direct()) {
			assertThat(tryLock(first)).isTrue();
			assertThat(tryLock(second)).as("directly, a second session is refused").isFalse();
		}
		// A closed session's backend exits, and gives its session lock back, a moment
		// later.
		this.pgLocks.await("the direct session's lock released",
				(locks) -> locks.stream().noneMatch((lock) -> lock.key() == this.key));
		try (Connection first = this.pgBouncer.connect(PgBouncer.ONE_SERVER_CONNECTION);
				Connection second = this.pgBouncer.connect(PgBouncer.ONE_SERVER_CONNECTION)) {
			assertThat(tryLock(first)).isTrue();
			// The unsafe outcome: both clients now believe they hold the lock
			// exclusively.
			assertThat(tryLock(second)).as("through PgBouncer, the second client is granted the lock too").isTrue();
			assertThat(this.pgLocks.on(this.key)).as("one server session holds it for both").hasSize(1);
		}
	}

	@Test
	void aSessionLockOutlivesTheClientThatTookIt() throws SQLException {
		try (Connection client = this.pgBouncer.connect(PgBouncer.ONE_SERVER_CONNECTION)) {
			assertThat(tryLock(client)).isTrue();
		}
		// The client is gone, but its server connection lives on in PgBouncer's pool:
		// nobody will ever unlock.
		try (Connection other = direct()) {
			assertThat(tryLock(other)).as("a session elsewhere finds the lock still held").isFalse();
		}
		assertThat(this.pgLocks.on(this.key)).hasSize(1);
	}

	@Test
	void aTransactionLockEndsWithItsTransactionOnTheSameServerConnection() throws SQLException {
		try (Connection client = this.pgBouncer.connect(PgBouncer.ONE_SERVER_CONNECTION)) {
			client.setAutoCommit(false);
			try (PreparedStatement statement = client.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
				statement.setLong(1, this.key);
				statement.execute();
			}
			assertThat(this.pgLocks.on(this.key)).hasSize(1);
			client.commit();
		}
		assertThat(this.pgLocks.on(this.key)).isEmpty();
	}

	private boolean tryLock(Connection connection) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
			statement.setLong(1, this.key);
			try (ResultSet result = statement.executeQuery()) {
				result.next();
				return result.getBoolean(1);
			}
		}
	}

	/** A session of its own, outside any pool, whose locks end when it is closed. */
	private static Connection direct() throws SQLException {
		TestDatabase database = TestDatabase.get();
		return DriverManager.getConnection(database.url(), database.username(), database.password());
	}

}
