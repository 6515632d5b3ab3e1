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

import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.TwoDatabases;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for an {@link AdvisoryLockTemplate} that knows two {@link DataSource}s, on two
 * databases, each with its own transaction manager: the lock joins the transaction of
 * whichever is bound, and a request names one where both are.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class SeveralDataSourcesTemplateTests {

	/**
	 * A pool of four on each database; the lock template knows both, {@code first} by
	 * default.
	 */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.twoDatabases(4);

	private final DataSource first = this.fixture.dataSource("first");

	private final DataSource second = this.fixture.dataSource("second");

	private final TransactionTemplate firstTransaction = this.fixture.transaction("first");

	private final TransactionTemplate secondTransaction = this.fixture.transaction("second");

	private final Map<String, DataSource> byName = TwoDatabases.byName(this.first, this.second);

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	private final String namespace = "several-" + UUID.randomUUID();

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private static int pid(DataSource dataSource) {
		// Through DataSourceUtils, so on the connection of the current transaction.
		return new JdbcTemplate(dataSource).queryForObject("SELECT pg_backend_pid()", Integer.class);
	}

	@Test
	void locksOnTheConnectionOfTheDataSourceTheTransactionIsBoundTo() {
		this.secondTransaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			assertThat(TwoDatabases.locksIn(this.second))
				.containsExactly(new AdvisoryLock(pid(this.second), key(1), "ExclusiveLock", true));
			assertThat(TwoDatabases.locksIn(this.first)).isEmpty();
		});
		this.firstTransaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 2);
			assertThat(TwoDatabases.locksIn(this.first))
				.containsExactly(new AdvisoryLock(pid(this.first), key(2), "ExclusiveLock", true));
			assertThat(TwoDatabases.locksIn(this.second)).isEmpty();
		});
	}

	@Test
	void transactionsOfBothDataSourcesBoundAtOnceFailNamingThemUnlessTheRequestNamesOne() {
		for (int propagation : new int[] { TransactionDefinition.PROPAGATION_REQUIRED,
				TransactionDefinition.PROPAGATION_REQUIRES_NEW }) {
			this.secondTransaction.setPropagationBehavior(propagation);
			this.firstTransaction.executeWithoutResult((outer) -> this.secondTransaction.executeWithoutResult((in) -> {
				assertThatExceptionOfType(LockTransactionException.class)
					.isThrownBy(() -> this.locks.lock(this.namespace, 1))
					.withMessageContaining(
							"several DataSources bound to the transactions of this thread, [first, " + "second]")
					.withMessageContaining("one of [first, second], with @AdvisoryLocked(dataSource = \"...\") or "
							+ "LockRequest.withDataSource(\"...\")");
				assertThat(TwoDatabases.locksIn(this.first)).isEmpty();
				assertThat(TwoDatabases.locksIn(this.second)).isEmpty();

				this.locks.lock(LockRequest.of(this.namespace, 1).withDataSource("second"));
				assertThat(TwoDatabases.locksIn(this.second))
					.containsExactly(new AdvisoryLock(pid(this.second), key(1), "ExclusiveLock", true));
				assertThat(TwoDatabases.locksIn(this.first)).isEmpty();
				this.locks.lock(LockRequest.of(this.namespace, 2).withDataSource("first"));
				assertThat(TwoDatabases.locksIn(this.first))
					.containsExactly(new AdvisoryLock(pid(this.first), key(2), "ExclusiveLock", true));
			}));
		}
	}

	@Test
	void aKeyHeldOnOneDataSourceIsNoConflictOnAnotherNorOnItsOwnConnectionFromAnInnerTransaction() {
		this.firstTransaction.executeWithoutResult((outer) -> {
			this.locks.lock(this.namespace, 1);
			int outerPid = pid(this.first);
			// The inner manager's transaction suspends the outer one's synchronizations,
			// and with them the record of its keys, but leaves its connection bound.
			this.secondTransaction.executeWithoutResult((inner) -> {
				this.locks.lock(LockRequest.of(this.namespace, 1).withDataSource("second"));
				this.locks.lock(LockRequest.of(this.namespace, 1).withDataSource("first"));
				assertThat(TwoDatabases.locksIn(this.second)).extracting(AdvisoryLock::key).containsExactly(key(1));
				assertThat(TwoDatabases.locksIn(this.first))
					.containsExactly(new AdvisoryLock(outerPid, key(1), "ExclusiveLock", true));
			});
		});
	}

	@Test
	void aRequiresNewOfTheSameManagerStillFailsForAKeyItsSuspendedTransactionHolds() {
		TransactionTemplate requiresNew = new TransactionTemplate(this.firstTransaction.getTransactionManager());
		requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.firstTransaction.executeWithoutResult((outer) -> {
			this.locks.lock(this.namespace, 1);
			requiresNew.executeWithoutResult((inner) -> assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> this.locks.lock(LockRequest.of(this.namespace, 1).withTimeout(PgLocks.HANG_TIMEOUT)))
				.withMessageContaining("suspended"));
		});
	}

	@Test
	void aKeyAnEnclosingInvocationScopedCallHoldsOnOneDataSourceIsTakenAgainOnAnother() {
		this.locks.execute(LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION), (handle) -> {
			assertThat(TwoDatabases.keysIn(this.first)).containsExactly(key(1));
			this.secondTransaction.executeWithoutResult((status) -> {
				this.locks.lock(this.namespace, 1);
				assertThat(TwoDatabases.locksIn(this.second))
					.containsExactly(new AdvisoryLock(pid(this.second), key(1), "ExclusiveLock", true));
			});
			// On the same DataSource, the enclosing call's key is re-entrant: no second
			// session asks for it.
			this.firstTransaction.executeWithoutResult((status) -> {
				this.locks.lock(this.namespace, 1);
				assertThat(TwoDatabases.locksIn(this.first)).hasSize(1);
			});
			return null;
		});
	}

	@Test
	void anUnknownNameFailsNamingTheKnownOnesBeforeAnyTransactionCheck() {
		LockRequest request = LockRequest.of(this.namespace, 1).withDataSource("third");
		assertThatIllegalArgumentException().isThrownBy(() -> this.locks.lock(request))
			.withMessageContaining("names DataSource 'third', and no DataSource bean has that name; the known ones "
					+ "are [first, second]");
		this.secondTransaction.executeWithoutResult(
				(status) -> assertThatIllegalArgumentException().isThrownBy(() -> this.locks.lock(request))
					.withMessageContaining("'third'"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.locks.execute(request.withScope(LockScope.INVOCATION), (handle) -> "ran"))
			.withMessageContaining("the known ones are [first, second]");
	}

	@Test
	void aNamedDataSourceWithoutABoundConnectionFailsSayingWhichIsBound() {
		this.firstTransaction.executeWithoutResult((status) -> assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.locks.lock(LockRequest.of(this.namespace, 1).withDataSource("second")))
			.withMessageContaining("found no JDBC connection of DataSource 'second' (only of [first]) bound to the "
					+ "current transaction"));
	}

	@Test
	void noConnectionOfAnyKnownDataSourceIsTheErrorOfOne() {
		try (HikariDataSource other = TestDatabase.get().newDataSource(1)) {
			new TransactionTemplate(new DataSourceTransactionManager(other))
				.executeWithoutResult((status) -> assertThatExceptionOfType(LockTransactionException.class)
					.isThrownBy(() -> this.locks.lock(this.namespace, 1))
					.withMessageContaining("found no JDBC connection of its DataSources [first, second] bound to the "
							+ "current transaction"));
		}
	}

	@Test
	void wrappersOnEitherSideMatchTheDataSourceTheyWrap() throws Exception {
		// The template knows a proxy of the pool; the manager manages a lazy proxy of it.
		try (AdvisoryLockTemplate wrapped = new AdvisoryLockTemplate(
				TwoDatabases.byName(this.first, new TransactionAwareDataSourceProxy(this.second)), "first")) {
			DataSource lazy = new LazyConnectionDataSourceProxy(this.second);
			new TransactionTemplate(new DataSourceTransactionManager(lazy)).executeWithoutResult((status) -> {
				wrapped.lock(this.namespace, 1);
				assertThat(TwoDatabases.locksIn(this.second))
					.containsExactly(new AdvisoryLock(pid(lazy), key(1), "ExclusiveLock", true));
			});
		}
	}

	@Test
	void invocationScopedLocksTakeTheirConnectionFromTheNamedDataSourceOrTheDefault() {
		LockRequest job = LockRequest.of(this.namespace, "job").withScope(LockScope.INVOCATION);
		this.locks.execute(job.withDataSource("second"), (handle) -> {
			assertThat(TwoDatabases.keysIn(this.second)).containsExactly(key("job"));
			assertThat(TwoDatabases.keysIn(this.first)).isEmpty();
			return null;
		});
		this.locks.execute(job, (handle) -> {
			assertThat(TwoDatabases.keysIn(this.first)).containsExactly(key("job"));
			assertThat(TwoDatabases.keysIn(this.second)).isEmpty();
			return null;
		});
	}

	@Test
	void eachDataSourceHasItsOwnBoundOnInvocationScopedLocks() {
		this.locks.setMaxInvocationConnections(1);
		LockRequest job = LockRequest.of(this.namespace, "job").withScope(LockScope.INVOCATION);
		this.locks.execute(job, (outer) -> this.locks.execute(
				LockRequest.of(this.namespace, "other").withScope(LockScope.INVOCATION).withDataSource("second"),
				(inner) -> {
					assertThat(TwoDatabases.keysIn(this.first)).containsExactly(key("job"));
					assertThat(TwoDatabases.keysIn(this.second)).containsExactly(key("other"));
					return null;
				}));
	}

	@Test
	void withoutADefaultAnInvocationScopedCallMustNameItsDataSource() throws Exception {
		try (AdvisoryLockTemplate noDefault = new AdvisoryLockTemplate(this.byName, null)) {
			LockRequest job = LockRequest.of(this.namespace, "job").withScope(LockScope.INVOCATION);
			assertThatIllegalStateException().isThrownBy(() -> noDefault.execute(job, (handle) -> "ran"))
				.withMessageContaining("there are several ([first, second]) with no primary one")
				.withMessageContaining("@AdvisoryLocked(dataSource = \"...\")");
			assertThat(noDefault.execute(job.withDataSource("second"), (handle) -> TwoDatabases.keysIn(this.second))
				.value()).containsExactly(key("job"));
		}
	}

	@Test
	void anInvocationLockDataSourceNeedsADefaultDataSource() throws Exception {
		try (AdvisoryLockTemplate noDefault = new AdvisoryLockTemplate(this.byName, null)) {
			assertThatIllegalStateException().isThrownBy(() -> noDefault.setInvocationDataSource(this.first))
				.withMessageContaining("there is none among [first, second]: mark one DataSource bean @Primary");
		}
	}

	@Test
	void rejectsAnUnknownDefault() {
		assertThatIllegalArgumentException().isThrownBy(() -> new AdvisoryLockTemplate(this.byName, "third"))
			.withMessageContaining("The default DataSource 'third' is none of [first, second]");
	}

}
