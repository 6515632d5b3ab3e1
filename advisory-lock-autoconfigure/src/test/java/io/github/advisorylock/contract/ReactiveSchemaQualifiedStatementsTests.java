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

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.LockActivity;
import io.github.advisorylock.pglocks.R2dbcAdvisoryLockInspector;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that the statements the R2DBC stack sends name every function, operator, type and
 * relation in {@code pg_catalog}, as {@link SchemaQualifiedStatementsTests} has them on
 * JDBC: each path runs on {@link ShadowedDatabase} and still excludes a session that
 * holds the key.
 */
@Tag("reactive")
@ExtendWith({ NoAdvisoryLocksLeft.class, OutputCaptureExtension.class })
class ReactiveSchemaQualifiedStatementsTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private static ConnectionPool pool;

	private final DataSource outside = ShadowedDatabase.clean();

	private final PgLocks pgLocks = new PgLocks(this.outside);

	private final String namespace = "reactive-qualified-" + UUID.randomUUID();

	private final R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);

	private final TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(pool));

	@BeforeAll
	static void createPool() {
		// The driver's own lookup of extension types names an operator unqualified.
		pool = R2dbcConnectionFactories.pool(ShadowedDatabase.url(), 4,
				(configuration) -> configuration.autodetectExtensions(false));
	}

	@AfterAll
	static void disposePool() {
		pool.dispose();
	}

	@AfterEach
	void close() {
		this.locks.close();
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	/** A JDBC call on the server, off the driver's event loop. */
	private static <T> Mono<T> onTheSide(Callable<T> call) {
		return Mono.fromCallable(call).subscribeOn(Schedulers.boundedElastic());
	}

	private Mono<Void> lock(LockRequest request) {
		return this.locks.lock(request).as(this.transaction::transactional);
	}

	@Test
	void triesFindTheKeysHeldAndWaitsTakeThemInEitherMode() {
		this.locks.setHolderDiagnosis(true);
		for (LockMode mode : LockMode.values()) {
			try (LockHolder holder = LockHolder.exclusive(this.outside, key(1))) {
				for (LockRequest tried : List.of(LockRequest.of(this.namespace, 1),
						LockRequest.of(this.namespace, 2, 1))) {
					assertThatExceptionOfType(LockBusyException.class)
						.isThrownBy(() -> lock(tried.withMode(mode).withWaitMode(WaitMode.TRY)).block(HANG))
						.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
							.containsExactly(holder.pid()));
				}
				Mono<List<PgLocks.AdvisoryLock>> waited = this.locks
					.lock(LockRequest.of(this.namespace, 2, 1).withMode(mode).withTimeout(HANG))
					.then(onTheSide(() -> this.pgLocks.on(key(1))))
					.as(this.transaction::transactional);
				Mono<Object> release = onTheSide(() -> {
					this.pgLocks.awaitWaiters(key(1), 1);
					holder.rollback();
					return true;
				});
				List<PgLocks.AdvisoryLock> taken = Mono.zip(waited, release).map((both) -> both.getT1()).block(HANG);
				assertThat(taken).singleElement()
					.satisfies((lock) -> assertThat(lock.mode())
						.isEqualTo((mode == LockMode.SHARED) ? "ShareLock" : "ExclusiveLock"));
			}
		}
	}

	@Test
	void aTransactionAboveReadCommittedIsRefusedWithItsLevel() {
		DatabaseClient client = DatabaseClient.create(pool);
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> client.sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
				.then()
				.then(this.locks.lock(this.namespace, 1))
				.as(this.transaction::transactional)
				.block(HANG))
			.withMessageContaining("runs repeatable read");
	}

	@Test
	void anInvocationScopedLockWaitsFencesWritesAndIssuesATokenThere() {
		LockRequest request = LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION).withTimeout(HANG);
		try (LockHolder holder = LockHolder.exclusive(this.outside, key(1))) {
			Mono<Long> token = this.locks
				.execute(request,
						(handle) -> this.locks.lock(this.namespace, 1)
							.then(onTheSide(this.pgLocks::fences))
							.as(this.transaction::transactional)
							.doOnNext((fences) -> assertThat(fences).extracting(PgLocks.AdvisoryLock::key)
								.containsExactly(key(1)))
							.then(this.locks.fencingToken()))
				.single();
			Mono<Object> release = onTheSide(() -> {
				this.pgLocks.awaitWaiters(key(1), 1);
				holder.rollback();
				return true;
			});
			assertThat(Mono.zip(token, release).map((both) -> both.getT1()).block(HANG)).isPositive();
		}
	}

	@Test
	void aLimitTriesAndWaitsForItsPermits() {
		long key = key("tenant");
		long[] slots = { AdvisoryLockKeys.permitSlot(key, 0), AdvisoryLockKeys.permitSlot(key, 1) };
		LockRequest limit = LockRequest.of(this.namespace, "tenant").withPermits(2);
		try (LockHolder holder = LockHolder.exclusive(this.outside, slots)) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> lock(limit.withWaitMode(WaitMode.TRY)).block(HANG))
				.withMessageEndingWith("all 2 permits of the limit are held");
			Mono<Object> release = onTheSide(() -> {
				this.pgLocks.await("a waiter for a permit", (locks) -> locks.stream()
					.anyMatch((lock) -> !lock.granted() && (lock.key() == slots[0] || lock.key() == slots[1])));
				holder.rollback();
				return true;
			});
			Mono.when(lock(limit.withTimeout(HANG)), release).block(HANG);
		}
	}

	@Test
	void theStartupCheckProvesExclusionThere(CapturedOutput output) {
		this.locks.checkExclusion(HANG).block(HANG);
		assertThat(output)
			.contains("Advisory locks on ConnectionFactory 'connectionFactory' exclude: a second session was refused");
	}

	@Test
	void theInspectorReadsTheLocksThere() {
		try (LockHolder holder = LockHolder.exclusive(this.outside, key(1))) {
			List<LockActivity> locks = new R2dbcAdvisoryLockInspector(pool, HANG, true).locks().block(HANG).locks();
			assertThat(locks).filteredOn((lock) -> Long.valueOf(key(1)).equals(lock.key()))
				.extracting(LockActivity::pid)
				.containsExactly(holder.pid());
		}
	}

}
