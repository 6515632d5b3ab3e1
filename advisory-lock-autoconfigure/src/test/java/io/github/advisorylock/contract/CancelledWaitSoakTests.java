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
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.Generated;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgBouncer;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A soak of cancelled reactive waits on a small pool: in each round a waiter of a plain
 * lock and one of a limit, both held by another session, are cancelled at a moment drawn
 * from the seed, while ordinary statements and lock calls that nobody cancels share the
 * pool. A cancel request may reach only the wait it was sent for: none of the others may
 * fail. Directly and through PgBouncer.
 *
 * @author advisory-lock authors
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class CancelledWaitSoakTests {

	private static final int ROUNDS = 150;

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private final String namespace = "soak-" + UUID.randomUUID();

	@ParameterizedTest
	@ValueSource(strings = { "direct", "PgBouncer" })
	void aCancelledWaitCancelsNoOtherStatementOfThePool(String topology) {
		ConnectionPool pool = topology.equals("direct") ? R2dbcConnectionFactories.direct(3)
				: R2dbcConnectionFactories.throughPgBouncer(PgBouncer.POOLED, 3);
		R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);
		TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(pool));
		DatabaseClient database = DatabaseClient.create(pool);
		long plainKey = AdvisoryLockKeys.of(this.namespace, "plain");
		long limitKey = AdvisoryLockKeys.of(this.namespace, "limit");
		Queue<String> failures = new ConcurrentLinkedQueue<>();
		AtomicInteger statements = new AtomicInteger();
		List<Integer> cancelAfterMillis = Generated.generate(ROUNDS, (generated) -> generated.between(0, 60)).toList();
		Set<Long> keys = new HashSet<>(
				List.of(plainKey, AdvisoryLockKeys.permitSlot(limitKey, 0), AdvisoryLockKeys.permitSlot(limitKey, 1)));
		PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), plainKey,
				AdvisoryLockKeys.permitSlot(limitKey, 0), AdvisoryLockKeys.permitSlot(limitKey, 1))) {
			for (int round = 0; round < ROUNDS; round++) {
				Disposable plainWaiter = waiter(locks, transaction, LockRequest.of(this.namespace, "plain"), failures);
				Disposable limitWaiter = waiter(locks, transaction,
						LockRequest.of(this.namespace, "limit").withPermits(2), failures);
				Mono<Void> ordinary = Flux.range(0, 4)
					.concatMap((each) -> database.sql("SELECT pg_sleep(0.002)")
						.then()
						.doOnSuccess((done) -> statements.incrementAndGet()))
					.then();
				Mono<Void> uncancelledLock = locks.lock(this.namespace, "free-" + round)
					.as(transaction::transactional)
					.doOnSuccess((done) -> statements.incrementAndGet());
				Mono<Void> others = Mono.when(ordinary, uncancelledLock, ordinary)
					.onErrorResume((ex) -> Mono.fromRunnable(() -> failures.add(ex.toString())));
				// The cancels land at a moment of the round drawn from the seed.
				Mono.when(others, Mono.delay(Duration.ofMillis(cancelAfterMillis.get(round))).doOnNext((tick) -> {
					plainWaiter.dispose();
					limitWaiter.dispose();
				})).block(HANG);
				keys.add(AdvisoryLockKeys.of(this.namespace, "free-" + round));
			}
			// The last round's cancels may still be on their way: a wait the server still
			// has when the holder lets
			// go takes the lock, and holds it until its rollback. The holder lets go once
			// no waiter is left.
			pgLocks.await("the cancelled waits gone",
					(held) -> held.stream().noneMatch((lock) -> !lock.granted() && keys.contains(lock.key())));
		}
		finally {
			locks.close();
			pool.dispose();
		}
		// The pool's connections end as it is disposed, each transaction with its locks,
		// but not before it returns.
		pgLocks.await("the soak's transactions ended",
				(held) -> held.stream().noneMatch((lock) -> keys.contains(lock.key())));
		System.out.printf("== cancelled-wait soak, %s: %d rounds, %d cancelled waiters, %d other statements and "
				+ "lock calls, %d failed%n", topology, ROUNDS, 2 * ROUNDS, statements.get(), failures.size());
		assertThat(failures).as("statements and lock calls nobody cancelled that failed").isEmpty();
		assertThat(statements).hasValue(ROUNDS * 9);
	}

	private static Disposable waiter(R2dbcAdvisoryLockTemplate locks, TransactionalOperator transaction,
			LockRequest request, Queue<String> failures) {
		return locks.lock(request.withTimeout(HANG))
			.as(transaction::transactional)
			.subscribe(null, (ex) -> failures.add("a waiter that was to be cancelled failed: " + ex));
	}

}
