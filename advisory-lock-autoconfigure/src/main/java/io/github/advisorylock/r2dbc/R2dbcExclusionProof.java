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

package io.github.advisorylock.r2dbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.advisorylock.core.ExclusionProof;
import io.github.advisorylock.core.sql.LockSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.R2dbcException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The startup check on R2DBC, as {@code JdbcExclusionProof} makes it on JDBC: a first
 * connection of a factory takes a random key, and a second one must be refused it; both
 * transactions then roll back. The timeout cancels what is left, which rolls back and
 * closes what was opened. Cost: two connections and four round trips (the tries, and
 * their rollbacks), and the transactions' openings.
 *
 * @author advisory-lock authors
 */
final class R2dbcExclusionProof {

	private static final String EXCLUSION_CHECK = LockSql.numbered(LockSql.EXCLUSION_CHECK);

	private R2dbcExclusionProof() {
	}

	/** Check each distinct connection factory against itself, one after the other. */
	static Mono<List<ExclusionProof>> check(R2dbcConnectionFactories factories, Duration timeout) {
		List<Map.Entry<String, ConnectionFactory>> distinct = new ArrayList<>();
		for (Map.Entry<String, ConnectionFactory> entry : factories.byName().entrySet()) {
			if (distinct.stream().noneMatch((seen) -> seen.getValue() == entry.getValue())) {
				distinct.add(entry);
			}
		}
		return Flux.fromIterable(distinct)
			.concatMap((entry) -> prove("ConnectionFactory '" + entry.getKey() + "'", entry.getValue(), timeout))
			.collectList();
	}

	/**
	 * Take a random key on a connection of the factory, and try it on another.
	 * @param source the factory, as a message names it
	 */
	static Mono<ExclusionProof> prove(String source, ConnectionFactory factory, Duration timeout) {
		String product = factory.getMetadata().getName();
		if (!"PostgreSQL".equals(product)) {
			return Mono.just(ExclusionProof.notPostgresql(source, product));
		}
		return Mono.defer(() -> {
			long start = System.nanoTime();
			long key = ThreadLocalRandom.current().nextLong();
			// What the check waits for, for the message if the timeout cuts it.
			AtomicReference<String> awaited = new AtomicReference<>(ExclusionProof.noConnection(timeout));
			Mono<ExclusionProof> proof = inTransaction(factory, (first) -> tryKey(first, key).flatMap((firstAnswer) -> {
				ExclusionProof early = ExclusionProof.firstTry(source, key, firstAnswer, elapsed(start));
				if (early != null) {
					return Mono.just(early);
				}
				awaited.set(ExclusionProof.noSecondConnection(timeout));
				return inTransaction(factory, (second) -> {
					awaited.set(ExclusionProof.noAnswer(timeout));
					return tryKey(second, key)
						.map((answer) -> ExclusionProof.secondTry(source, key, answer, elapsed(start)));
				});
			}));
			return proof
				.timeout(timeout,
						Mono.fromSupplier(() -> ExclusionProof.unproven(source, awaited.get(), elapsed(start))))
				.onErrorResume((ex) -> Mono.just((ex instanceof R2dbcException failure)
						? ExclusionProof.failed(source, failure.getSqlState(), failure.getMessage(), elapsed(start))
						: ExclusionProof.unproven(source, "it failed: " + ex, elapsed(start))));
		});
	}

	/** Run the work on a new connection in a transaction rolled back and closed after. */
	private static <T> Mono<T> inTransaction(ConnectionFactory factory, Function<Connection, Mono<T>> work) {
		return Mono.usingWhen(Mono.from(factory.create()),
				(connection) -> Mono.from(connection.beginTransaction()).then(work.apply(connection)),
				R2dbcExclusionProof::end, (connection, error) -> end(connection), R2dbcExclusionProof::end);
	}

	private static Mono<ExclusionProof.Answer> tryKey(Connection connection, long key) {
		return Flux.from(connection.createStatement(EXCLUSION_CHECK).bind(0, key).execute())
			.concatMap((result) -> result
				.map((row, metadata) -> new ExclusionProof.Answer(Boolean.TRUE.equals(row.get(0, Boolean.class)),
						Boolean.TRUE.equals(row.get(1, Boolean.class)))))
			.single();
	}

	private static Mono<Void> end(Connection connection) {
		return Mono.from(connection.rollbackTransaction())
			.onErrorResume((ex) -> Mono.empty())
			.then(Mono.from(connection.close()));
	}

	private static Duration elapsed(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

}
