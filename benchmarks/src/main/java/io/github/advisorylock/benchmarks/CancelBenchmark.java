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

package io.github.advisorylock.benchmarks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgBouncer;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Wrapped;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * What waiting for a cancel request's answer costs on the reactive stack (issue 51): the
 * answer's time alone, on an idle backend, and, for a waiter of a pool of one connection
 * that cancels, the time from its cancel until the pool's next borrower has the
 * connection, which is what the borrower pays. Directly and through PgBouncer (where it
 * is installed). Not part of the full run; alone it prints its table and writes nothing:
 * {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pbenchmarks -Dbenchmarks.main=io.github.advisorylock.benchmarks.CancelBenchmark}.
 */
public final class CancelBenchmark {

	private static final int SAMPLES = 300;

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private CancelBenchmark() {
	}

	/**
	 * Measure and print the table.
	 * @param args none
	 */
	public static void main(String[] args) {
		Map<String, ConnectionPool> topologies = new LinkedHashMap<>();
		topologies.put("direct", R2dbcConnectionFactories.direct(1));
		String skipped = null;
		try {
			topologies.put("through PgBouncer", R2dbcConnectionFactories.throughPgBouncer(PgBouncer.POOLED, 1));
		}
		catch (RuntimeException ex) {
			// Not installed: PgBouncer's harness says so, naming the package.
			skipped = ex.getMessage();
		}
		System.out.println("| topology | a cancel request answered, p50 / p99, ms | a cancelled waiter's connection "
				+ "to the next borrower, p50 / p99, ms |");
		System.out.println("| --- | --- | --- |");
		topologies.forEach((name, pool) -> {
			try {
				double[] answered = answered(pool);
				double[] handedOn = handedOn(pool);
				System.out.printf("| %s | %.2f / %.2f | %.2f / %.2f |%n", name, percentile(answered, 50),
						percentile(answered, 99), percentile(handedOn, 50), percentile(handedOn, 99));
			}
			finally {
				pool.dispose();
			}
		});
		System.out.printf("%d samples each, %d cores, embedded PostgreSQL %d%n", SAMPLES,
				Runtime.getRuntime().availableProcessors(), TestDatabase.get().serverMajorVersion());
		if (skipped != null) {
			System.out.println(skipped);
		}
		System.exit(0);
	}

	/**
	 * The time of a cancel request's answer, for the idle backend of the pool's
	 * connection.
	 */
	private static double[] answered(ConnectionPool pool) {
		Connection connection = pool.create().block(HANG);
		try {
			PostgresqlConnection driver = driver(connection);
			double[] millis = new double[SAMPLES];
			for (int i = 0; i < SAMPLES; i++) {
				long start = System.nanoTime();
				driver.cancelRequest().block(HANG);
				millis[i] = (System.nanoTime() - start) / 1e6;
			}
			return millis;
		}
		finally {
			Mono.from(connection.close()).block(HANG);
		}
	}

	/**
	 * The time from a waiter's cancel until the pool's one connection is lent to the next
	 * borrower: the cancel request's answer, the rollback, the return to the pool.
	 */
	private static double[] handedOn(ConnectionPool pool) {
		String namespace = "cancel-" + UUID.randomUUID();
		R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);
		TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(pool));
		PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());
		long key = AdvisoryLockKeys.of(namespace, "busy");
		double[] millis = new double[SAMPLES];
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key)) {
			for (int i = 0; i < SAMPLES; i++) {
				Disposable waiter = locks.lock(LockRequest.of(namespace, "busy").withTimeout(HANG))
					.as(transaction::transactional)
					.subscribe();
				pgLocks.awaitWaiters(key, 1);
				long start = System.nanoTime();
				waiter.dispose();
				Connection next = pool.create().block(HANG);
				millis[i] = (System.nanoTime() - start) / 1e6;
				Mono.from(next.close()).block(HANG);
			}
		}
		finally {
			locks.close();
		}
		return millis;
	}

	private static PostgresqlConnection driver(Connection connection) {
		Object each = connection;
		while (!(each instanceof PostgresqlConnection) && each instanceof Wrapped<?> wrapped) {
			each = wrapped.unwrap();
		}
		return (PostgresqlConnection) each;
	}

	private static double percentile(double[] values, double percent) {
		return Summary.percentileOf(values, percent);
	}

}
