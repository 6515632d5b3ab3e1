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

import javax.sql.DataSource;

import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock contract on the JDBC stack:
 * {@link io.github.advisorylock.AdvisoryLockOperations} inside real Spring transactions
 * on the subclass's {@link DataSource} or, for an invocation scope, on a connection of
 * its own derived from it.
 */
abstract class AbstractJdbcLockContractTests extends AbstractLockContractTests {

	/**
	 * The topology under test, asked for before each test (see {@link #connect()}): one
	 * that is not installed aborts the test there.
	 */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.on(this::dataSource);

	private final LockStack stack = new JdbcLockStack(this.fixture);

	/**
	 * Return the data source of the topology under test: what the transactions, the locks
	 * and the other sessions' holders connect through.
	 * @return the data source
	 */
	protected abstract DataSource dataSource();

	/**
	 * Ask for the topology before the test's first step. A step may run on another thread
	 * or inside an assertion on what it throws, where a topology that is not installed
	 * would turn its skip into a failure.
	 */
	@BeforeEach
	void connect() {
		dataSource();
	}

	@Override
	protected LockStack stack() {
		return this.stack;
	}

	/** The held locks of the slots of the limit of 3 permits, whoever holds them. */
	private List<AdvisoryLock> slotsHeld() {
		List<Long> slots = List.of(slot("tenant", 0), slot("tenant", 1), slot("tenant", 2));
		return this.pgLocks.all().stream().filter((lock) -> lock.granted() && slots.contains(lock.key())).toList();
	}

	@Test
	void anInvocationScopedLimitHoldsOnePermitOnItsOwnSessionForTheWholeCall() {
		try (LockHolder plain = LockHolder.exclusive(stack().holders(), key("tenant"))) {
			LockResult<String> result = stack().execute(limit(3).withScope(LockScope.INVOCATION), () -> {
				// The work's transaction commits; the permit is still held, by the call's
				// own session.
				int workPid = stack().inTransaction(LockStack.Transaction::backendPid);
				assertThat(slotsHeld()).extracting(AdvisoryLock::key)
					.containsExactlyInAnyOrder(slot("tenant", 0), slot("tenant", 1));
				assertThat(slotsHeld()).extracting(AdvisoryLock::pid).doesNotContain(workPid);
				// A transaction-scoped call of the same limit inside it is a fenced write
				// of its permit, and takes no second one.
				stack().inTransaction((transaction) -> {
					transaction.lock(limit(3));
					assertThat(slotsHeld()).extracting(AdvisoryLock::key)
						.containsExactlyInAnyOrder(slot("tenant", 0), slot("tenant", 1));
					return null;
				});
				return "ran";
			});
			assertThat(result.value()).isEqualTo("ran");
			assertThat(this.pgLocks.all()).extracting(AdvisoryLock::key).containsExactly(key("tenant"));
		}
	}

}
