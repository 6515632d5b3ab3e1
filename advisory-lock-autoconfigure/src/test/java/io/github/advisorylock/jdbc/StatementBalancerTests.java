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

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.ServerInRecovery;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of a lock behind a balancer that routes each statement on its own, as pgpool-II
 * does with {@code statement_level_load_balance}: the try runs on the primary and finds
 * the key held, and the wait that follows is sent to a standby, where nobody holds it. It
 * is refused there, naming the standby, and takes nothing: never a lock silently taken on
 * a server whose locks exclude nobody on the primary.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class StatementBalancerTests {

	private static ServerInRecovery standby;

	private static HikariDataSource standbyPool;

	private final String namespace = "balanced-" + UUID.randomUUID();

	private final DataSource primary = TestDatabase.get().dataSource();

	/**
	 * The waits (a lock's, a limit's slice) go to the standby; the rest to the primary.
	 */
	private final DataSource balanced = new StatementRouting(this.primary, () -> standbyPool.getConnection(),
			(sql) -> sql.contains("pg_catalog.current_setting('lock_timeout')"));

	@BeforeAll
	static void startAStandby() throws IOException {
		standby = ServerInRecovery.shared();
		standbyPool = TestDatabase.get().newDataSource(standby.jdbcUrl(), 4);
	}

	@AfterAll
	static void stopTheStandby() throws IOException {
		standbyPool.close();
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private void assertRefusedOnTheStandby(AdvisoryLockTemplate locks, LockRequest request) {
		assertRefusedOnTheStandby(locks, this.balanced, request);
	}

	private void assertRefusedOnTheStandby(AdvisoryLockTemplate locks, DataSource balanced, LockRequest request) {
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(balanced));
		transaction.executeWithoutResult((status) -> {
			assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> locks.lock(request))
				.withMessageContaining("was asked of a server in recovery");
			// Read before the transaction ends, which would release what the standby
			// granted.
			assertThat(new PgLocks(standbyPool).all()).as("locks taken on the standby").isEmpty();
			status.setRollbackOnly();
		});
	}

	@Test
	void aWaitSentToAStandbyIsRefusedAndTakesNothing() throws Exception {
		try (LockHolder holder = LockHolder.exclusive(this.primary, key(1));
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(this.balanced)) {
			assertRefusedOnTheStandby(locks, LockRequest.of(this.namespace, 1).withTimeout(PgLocks.HANG_TIMEOUT));
		}
	}

	@Test
	void aWaitWithoutATryFirstSentToAStandbyIsRefusedAndTakesNothing() throws Exception {
		List<String> toTheStandby = new CopyOnWriteArrayList<>();
		DataSource balanced = new StatementRouting(this.primary, () -> standbyPool.getConnection(), (sql) -> {
			boolean wait = sql.contains("pg_catalog.current_setting('lock_timeout')");
			if (wait) {
				toTheStandby.add(sql);
			}
			return wait;
		});
		try (LockHolder holder = LockHolder.exclusive(this.primary, key(1));
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(balanced)) {
			// A try on the primary finds the key held: the next call waits at once.
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(balanced));
			Boolean taken = transaction.execute((status) -> locks.tryLock(this.namespace, 1));
			assertThat(taken).isFalse();
			assertRefusedOnTheStandby(locks, balanced,
					LockRequest.of(this.namespace, 1).withTimeout(PgLocks.HANG_TIMEOUT));
		}
		assertThat(toTheStandby).singleElement().asString().contains(LockSql.KEPT_LOCK_TIMEOUT);
	}

	@Test
	void aLimitsSliceSentToAStandbyIsRefusedAndTakesNothing() throws Exception {
		long key = key("tenant");
		try (LockHolder holder = LockHolder.exclusive(this.primary, AdvisoryLockKeys.permitSlot(key, 0),
				AdvisoryLockKeys.permitSlot(key, 1));
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(this.balanced)) {
			assertRefusedOnTheStandby(locks,
					LockRequest.of(this.namespace, "tenant").withPermits(2).withTimeout(PgLocks.HANG_TIMEOUT));
		}
	}

	@Test
	void anInvocationScopedWaitSentToAStandbyIsRefused() throws Exception {
		try (LockHolder holder = LockHolder.exclusive(this.primary, key(1));
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(this.primary)) {
			locks.setInvocationDataSource(this.balanced);
			assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> locks.execute(
					LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION).withTimeout(PgLocks.HANG_TIMEOUT),
					(handle) -> "ran"))
				.withMessageContaining("was asked of a server in recovery");
		}
	}

	/** Where a connection comes from, for the standby's side of a routed connection. */
	@FunctionalInterface
	interface ConnectionSource {

		Connection get() throws SQLException;

	}

	/**
	 * A data source whose connections are a pair, one to each server: a statement goes to
	 * the one its text selects, and the transaction's begin and end go to both.
	 */
	static final class StatementRouting extends AbstractDataSource {

		private static final Set<String> TO_BOTH = Set.of("setAutoCommit", "commit", "rollback", "close",
				"setTransactionIsolation", "setReadOnly");

		private final DataSource primary;

		private final ConnectionSource standby;

		private final Predicate<String> toStandby;

		StatementRouting(DataSource primary, ConnectionSource standby, Predicate<String> toStandby) {
			this.primary = primary;
			this.standby = standby;
			this.toStandby = toStandby;
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection onPrimary = this.primary.getConnection();
			Connection onStandby;
			try {
				onStandby = this.standby.get();
			}
			catch (SQLException ex) {
				onPrimary.close();
				throw ex;
			}
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, arguments) -> {
						if (method.getName().startsWith("prepare") && arguments != null
								&& arguments[0] instanceof String sql && this.toStandby.test(sql)) {
							return invoke(onStandby, method, arguments);
						}
						// A savepoint is the primary's: the slice's own is in its text.
						if (TO_BOTH.contains(method.getName())
								&& !(arguments != null && arguments[0] instanceof Savepoint)) {
							invoke(onStandby, method, arguments);
						}
						return invoke(onPrimary, method, arguments);
					});
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			throw new UnsupportedOperationException("The routing test data source logs in as its servers do");
		}

		private static Object invoke(Connection connection, Method method, Object[] arguments) throws Throwable {
			try {
				return method.invoke(connection, arguments);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

	}

}
