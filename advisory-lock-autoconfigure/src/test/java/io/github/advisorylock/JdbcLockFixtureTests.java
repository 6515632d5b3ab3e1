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

package io.github.advisorylock;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.opentest4j.TestAbortedException;

import org.springframework.dao.CannotAcquireLockException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests that {@link JdbcLockFixture} closes after a test what it built for it, and only
 * that: the lock template and its own pools, not a {@code DataSource} it was given, and
 * nothing at all for a test that aborted before its {@code DataSource} existed. The JUnit
 * callbacks are called directly, as JUnit calls them after a test.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class JdbcLockFixtureTests {

	private final String namespace = "fixture-" + UUID.randomUUID();

	@Test
	void closesTheLockTemplateAndThePoolItBuiltRightAfterTheTest() throws Exception {
		JdbcLockFixture fixture = JdbcLockFixture.newPool(1);
		HikariDataSource pool = (HikariDataSource) fixture.dataSource();
		AdvisoryLockTemplate locks = fixture.locks();
		fixture.afterTestExecution(null);
		assertThat(pool.isClosed()).isTrue();
		assertThatExceptionOfType(CannotAcquireLockException.class).isThrownBy(() -> invocationScoped(locks))
			.withMessageContaining("the application is shutting down");
		assertThatNoException().as("then afterEach finds nothing left to close")
			.isThrownBy(() -> fixture.afterEach(null));
	}

	@Test
	void closesBothPoolsOfTwoDatabases() throws Exception {
		JdbcLockFixture fixture = JdbcLockFixture.twoDatabases(1);
		HikariDataSource first = (HikariDataSource) fixture.dataSource("first");
		HikariDataSource second = (HikariDataSource) fixture.dataSource("second");
		assertThat(fixture.dataSource()).isSameAs(first);
		fixture.afterEach(null);
		assertThat(first.isClosed()).isTrue();
		assertThat(second.isClosed()).isTrue();
	}

	@Test
	void leavesADataSourceItWasGivenOpen() throws Exception {
		try (HikariDataSource given = TestDatabase.get().newDataSource(1)) {
			JdbcLockFixture fixture = JdbcLockFixture.on(given);
			AdvisoryLockTemplate locks = fixture.locks();
			fixture.afterEach(null);
			assertThat(given.isClosed()).isFalse();
			assertThatExceptionOfType(CannotAcquireLockException.class).isThrownBy(() -> invocationScoped(locks))
				.withMessageContaining("the application is shutting down");
		}
	}

	@Test
	void aTestThatAbortedGettingItsDataSourceClosesNothingAndStaysASkip() throws Exception {
		JdbcLockFixture fixture = JdbcLockFixture.on(() -> {
			throw new TestAbortedException("topology not installed");
		});
		assertThatExceptionOfType(TestAbortedException.class).isThrownBy(fixture::locks);
		assertThatNoException().isThrownBy(() -> fixture.afterEach(null));
	}

	@Test
	void anUnknownDataSourceNameIsRefusedNamingTheKnownOnes() throws Exception {
		JdbcLockFixture fixture = JdbcLockFixture.twoDatabases(1);
		try {
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> fixture.dataSource("third"))
				.withMessage("No DataSource 'third' in this fixture; it has [first, second]");
		}
		finally {
			fixture.afterEach(null);
		}
	}

	/** Take an invocation-scoped lock: refused by a template that was closed. */
	private void invocationScoped(AdvisoryLockTemplate locks) {
		locks.execute(LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION), (handle) -> null);
	}

}
