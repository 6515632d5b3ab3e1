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

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.ServerInRecovery;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of a reactive lock behind a balancer that routes each statement on its own, as
 * {@code StatementBalancerTests} has them on JDBC: the try runs on the primary and finds
 * the key held, the wait is sent to a standby, and it is refused there, naming the
 * standby, having taken nothing.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class ReactiveStatementBalancerTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private static ServerInRecovery standby;

	private static ConnectionPool primaryPool;

	private static ConnectionPool standbyPool;

	private static HikariDataSource standbyObserver;

	private final String namespace = "reactive-balanced-" + UUID.randomUUID();

	@BeforeAll
	static void startAStandby() throws IOException {
		standby = ServerInRecovery.shared();
		primaryPool = R2dbcConnectionFactories.direct(4);
		standbyPool = R2dbcConnectionFactories.pool(standby.jdbcUrl(), 4);
		standbyObserver = TestDatabase.get().newDataSource(standby.jdbcUrl(), 1);
	}

	@AfterAll
	static void stopTheStandby() throws IOException {
		primaryPool.dispose();
		standbyPool.dispose();
		standbyObserver.close();
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private void assertRefusedOnTheStandby(LockRequest request) {
		assertRefusedOnTheStandby(request, false);
	}

	/**
	 * @param triedFirst whether a try of the request's key finds it held before, so that
	 * the request waits for it at once
	 */
	private void assertRefusedOnTheStandby(LockRequest request, boolean triedFirst) {
		// The waits (a lock's, a limit's slice) go to the standby; the rest to the
		// primary.
		List<String> toTheStandby = new CopyOnWriteArrayList<>();
		ConnectionFactory balanced = new StatementRouting(primaryPool, standbyPool, (sql) -> {
			boolean wait = sql.contains("pg_catalog.current_setting('lock_timeout')");
			if (wait) {
				toTheStandby.add(sql);
			}
			return wait;
		});
		R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(balanced);
		TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(balanced));
		AtomicReference<List<PgLocks.AdvisoryLock>> onTheStandby = new AtomicReference<>();
		try {
			if (triedFirst) {
				assertThat(locks.tryLock(request.namespace(), request.keys().toArray())
					.as(transaction::transactional)
					.block(HANG)).isFalse();
			}
			assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> locks.lock(request)
				// Read before the transaction ends, which would release what the standby
				// granted.
				.onErrorResume(LockTransactionException.class,
						(ex) -> Mono.fromCallable(() -> new PgLocks(standbyObserver).all())
							.subscribeOn(Schedulers.boundedElastic())
							.doOnNext(onTheStandby::set)
							.then(Mono.error(ex)))
				.as(transaction::transactional)
				.block(HANG)).withMessageContaining("was asked of a server in recovery");
			assertThat(onTheStandby.get()).as("locks taken on the standby").isEmpty();
			if (triedFirst) {
				// Waited for at once, without a try.
				assertThat(toTheStandby).singleElement().asString().contains(LockSql.KEPT_LOCK_TIMEOUT);
			}
		}
		finally {
			locks.close();
		}
	}

	@Test
	void aWaitSentToAStandbyIsRefusedAndTakesNothing() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			assertRefusedOnTheStandby(LockRequest.of(this.namespace, 1).withTimeout(HANG));
		}
	}

	@Test
	void aWaitWithoutATryFirstSentToAStandbyIsRefusedAndTakesNothing() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			assertRefusedOnTheStandby(LockRequest.of(this.namespace, 1).withTimeout(HANG), true);
		}
	}

	@Test
	void aLimitsSliceSentToAStandbyIsRefusedAndTakesNothing() {
		long key = key("tenant");
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
				AdvisoryLockKeys.permitSlot(key, 0), AdvisoryLockKeys.permitSlot(key, 1))) {
			assertRefusedOnTheStandby(LockRequest.of(this.namespace, "tenant").withPermits(2).withTimeout(HANG));
		}
	}

	/**
	 * A connection factory whose connections are a pair, one to each server: a statement
	 * goes to the one its text selects, and the transaction's begin and end go to both.
	 */
	static final class StatementRouting implements ConnectionFactory {

		private static final Set<String> TO_BOTH = Set.of("commitTransaction", "rollbackTransaction", "close",
				"setTransactionIsolationLevel", "setAutoCommit");

		private final ConnectionFactory primary;

		private final ConnectionFactory standby;

		private final Predicate<String> toStandby;

		StatementRouting(ConnectionFactory primary, ConnectionFactory standby, Predicate<String> toStandby) {
			this.primary = primary;
			this.standby = standby;
			this.toStandby = toStandby;
		}

		@Override
		public Publisher<? extends Connection> create() {
			return Mono.zip(Mono.from(this.primary.create()), Mono.from(this.standby.create()))
				.map((pair) -> (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { Connection.class }, (proxy, method, arguments) -> {
							if (method.getName().equals("createStatement")
									&& this.toStandby.test((String) arguments[0])) {
								return invoke(pair.getT2(), method, arguments);
							}
							if (method.getName().equals("beginTransaction")) {
								// Plain on the standby, which refuses READ WRITE.
								return Mono.when(pair.getT2().beginTransaction(),
										(Publisher<?>) invoke(pair.getT1(), method, arguments));
							}
							if (TO_BOTH.contains(method.getName())) {
								return Mono.when((Publisher<?>) invoke(pair.getT2(), method, arguments),
										(Publisher<?>) invoke(pair.getT1(), method, arguments));
							}
							return invoke(pair.getT1(), method, arguments);
						}));
		}

		@Override
		public ConnectionFactoryMetadata getMetadata() {
			return this.primary.getMetadata();
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
