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

import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.r2dbc.spi.ConnectionFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.r2dbc.connection.ConnectionFactoryUtils;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * Reactive transactions that lock without the annotation, each inside
 * {@link TransactionalOperator}: the hand-written lock statement on the transaction's
 * R2DBC connection (the floor), and {@link ReactiveAdvisoryLockOperations}.
 */
public class ReactiveHandWrittenCalls {

	/**
	 * The JDBC floor's statement with both checks the library's statement makes (the
	 * isolation, and that the server is not a standby), in R2DBC's parameter syntax: one
	 * round trip, as the library's statement for a free key.
	 */
	static final String FULLY_CHECKED_LOCK = "SELECT pg_advisory_xact_lock($1) "
			+ "WHERE current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') "
			+ "AND NOT pg_is_in_recovery()";

	private final ConnectionFactory connectionFactory;

	private final TransactionalOperator transaction;

	private final ReactiveAdvisoryLockOperations locks;

	/**
	 * Create the calls.
	 * @param connectionFactory the connection factory of the transaction manager
	 * @param transaction the operator of the R2DBC transaction manager
	 * @param locks the library's reactive programmatic API
	 */
	public ReactiveHandWrittenCalls(ConnectionFactory connectionFactory, TransactionalOperator transaction,
			ReactiveAdvisoryLockOperations locks) {
		this.connectionFactory = connectionFactory;
		this.transaction = transaction;
		this.locks = locks;
	}

	/**
	 * The floor: the hand-written lock statement with the isolation and recovery checks,
	 * then commit.
	 * @param key the 64-bit key
	 * @return completes once the transaction committed
	 */
	public Mono<Void> floor(long key) {
		return lock(key).as(this.transaction::transactional);
	}

	/**
	 * The floor with a body that runs under the lock.
	 * @param key the 64-bit key
	 * @param body what the transaction does under the lock
	 * @return completes once the transaction committed
	 */
	public Mono<Void> floorAndRun(long key, Runnable body) {
		return lock(key).then(Mono.<Void>fromRunnable(body)).as(this.transaction::transactional);
	}

	/**
	 * Lock one key through
	 * {@link ReactiveAdvisoryLockOperations#lock(String, Object...)}, then commit.
	 * @param key the resource
	 * @return completes once the transaction committed
	 */
	public Mono<Void> operations(long key) {
		return this.locks.lock(AnnotatedCalls.NAMESPACE, key).as(this.transaction::transactional);
	}

	private Mono<Void> lock(long key) {
		return lock(this.connectionFactory, key);
	}

	/**
	 * Run the hand-written statement on the connection bound to the subscriber's
	 * transaction, and read its result to the end, as the library does (an unread result
	 * would keep the connection busy).
	 * @param connectionFactory the connection factory of the transaction manager
	 * @param key the 64-bit key
	 * @return completes once the statement ran
	 */
	static Mono<Void> lock(ConnectionFactory connectionFactory, long key) {
		return ConnectionFactoryUtils.getConnection(connectionFactory)
			.flatMap((connection) -> Flux.from(connection.createStatement(FULLY_CHECKED_LOCK).bind(0, key).execute())
				.concatMap((result) -> result.map((row, metadata) -> 1))
				.then());
	}

}
