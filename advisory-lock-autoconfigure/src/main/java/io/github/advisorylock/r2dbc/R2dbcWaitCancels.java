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
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.r2dbc.postgresql.api.PostgresqlConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * The cancel requests sent for the lock waits of one reactive transaction, which its end
 * awaits.
 * <p>
 * A cancel request cancels whatever the backend runs when it arrives: arriving late, it
 * would cancel the statement of the connection's next borrower. So
 * {@code beforeCompletion}, which Spring awaits before it ends the transaction and gives
 * the connection back, waits until the server has answered each request; one that fails
 * or is not answered within {@link #ANSWER_TIMEOUT} has its connection closed instead
 * (docs/decisions.md, "A cancelled reactive wait").
 *
 * @author advisory-lock authors
 */
final class R2dbcWaitCancels implements TransactionSynchronization {

	/**
	 * How long a cancel request may take to be answered before its connection is closed:
	 * a connect and one packet, milliseconds on a server that is up.
	 */
	static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(2);

	private static final Log logger = LogFactory.getLog(R2dbcWaitCancels.class);

	/** The key of a transaction's instance among its resources. */
	private static final Object RESOURCE = new Object();

	/** For a lock session's wait, whose close awaits its cancel: nothing else does. */
	static final R2dbcWaitCancels UNAWAITED = new R2dbcWaitCancels(null);

	private final @Nullable TransactionSynchronizationManager transaction;

	private final Queue<Mono<Void>> sent = new ConcurrentLinkedQueue<>();

	private R2dbcWaitCancels(@Nullable TransactionSynchronizationManager transaction) {
		this.transaction = transaction;
	}

	/**
	 * Return the subscriber's transaction's instance, registered at the first call;
	 * outside one, {@link #UNAWAITED}.
	 */
	static Mono<R2dbcWaitCancels> ofCurrentTransaction() {
		return TransactionSynchronizationManager.forCurrentTransaction().map((transaction) -> {
			if (!transaction.isSynchronizationActive()) {
				return UNAWAITED;
			}
			R2dbcWaitCancels cancels = (R2dbcWaitCancels) transaction.getResource(RESOURCE);
			if (cancels == null) {
				cancels = new R2dbcWaitCancels(transaction);
				transaction.bindResource(RESOURCE, cancels);
				transaction.registerSynchronization(cancels);
			}
			return cancels;
		}).onErrorResume(NoTransactionException.class, (ex) -> Mono.just(UNAWAITED));
	}

	/** Send a cancel request now; the transaction's completion awaits its answer. */
	void send(PostgresqlConnection connection) {
		Mono<Void> answered = connection.cancelRequest()
			.timeout(ANSWER_TIMEOUT)
			.onErrorResume((ex) -> closeUnanswered(connection, ex))
			.cache();
		if (this.transaction != null) {
			this.sent.add(answered);
		}
		answered.subscribe();
	}

	private static Mono<Void> closeUnanswered(PostgresqlConnection connection, Throwable ex) {
		logger.debug("A cancel request for an advisory lock wait was not answered; closing its connection", ex);
		return R2dbcDriverConnections.close(connection).onErrorResume((closing) -> Mono.empty());
	}

	@Override
	public Mono<Void> beforeCompletion() {
		return Mono.when(this.sent);
	}

	// A transaction suspended around a REQUIRES_NEW one shares its synchronization
	// manager: the inner one's waits must not find this instance, which only the outer
	// one's end awaits.

	@Override
	public Mono<Void> suspend() {
		return Mono.fromRunnable(() -> manager().unbindResourceIfPossible(RESOURCE));
	}

	@Override
	public Mono<Void> resume() {
		return Mono.fromRunnable(() -> manager().bindResource(RESOURCE, this));
	}

	@Override
	public Mono<Void> afterCompletion(int status) {
		return Mono.fromRunnable(() -> manager().unbindResourceIfPossible(RESOURCE));
	}

	private TransactionSynchronizationManager manager() {
		Assert.state(this.transaction != null, "Only a transaction's instance is registered");
		return this.transaction;
	}

}
