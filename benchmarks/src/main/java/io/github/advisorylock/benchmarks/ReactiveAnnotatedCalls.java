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

import io.github.advisorylock.AdvisoryLocked;
import io.r2dbc.spi.ConnectionFactory;
import reactor.core.publisher.Mono;

import org.springframework.transaction.annotation.Transactional;

/**
 * Reactive transactions that lock through {@code @AdvisoryLocked} on a {@code Mono}
 * method, as an application with both stacks writes them: the R2DBC transaction manager
 * named on {@code @Transactional}.
 */
public class ReactiveAnnotatedCalls {

	/** The bean name Spring Boot gives the R2DBC transaction manager. */
	static final String R2DBC_TRANSACTIONS = "connectionFactoryTransactionManager";

	private final ConnectionFactory connectionFactory;

	/**
	 * Create the calls.
	 * @param connectionFactory the connection factory of the transaction manager
	 */
	public ReactiveAnnotatedCalls(ConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Run the floor's hand-written statement in a {@code @Transactional} method, without
	 * the lock annotation, and commit: what Spring's reactive transaction interceptor
	 * costs beside {@code TransactionalOperator}, apart from the library.
	 * @param key the 64-bit key
	 * @return completes once the transaction committed
	 */
	@Transactional(R2DBC_TRANSACTIONS)
	public Mono<Void> floor(long key) {
		return ReactiveHandWrittenCalls.lock(this.connectionFactory, key);
	}

	/**
	 * Lock one key and commit.
	 * @param key the resource
	 * @return completes once the transaction committed
	 */
	@Transactional(R2DBC_TRANSACTIONS)
	@AdvisoryLocked(namespace = AnnotatedCalls.NAMESPACE, key = "#key")
	public Mono<Void> lockOne(long key) {
		return Mono.empty();
	}

	/**
	 * Lock one key, run the body while holding it, and commit.
	 * @param key the resource
	 * @param body what the transaction does under the lock
	 * @return completes once the transaction committed
	 */
	@Transactional(R2DBC_TRANSACTIONS)
	@AdvisoryLocked(namespace = AnnotatedCalls.NAMESPACE, key = "#key", timeout = "60s")
	public Mono<Void> lockAndRun(long key, Runnable body) {
		return Mono.fromRunnable(body);
	}

}
