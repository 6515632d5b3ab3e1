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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of {@code ReactiveAdvisoryLockOperations.fencingToken()} from a user's view, as
 * {@code FencingTokenTests} has them on JDBC: each holder of a key gets a number greater
 * than every earlier holder's, and a holder that lost its lock gets none. Two templates
 * on one database stand for two instances; a lost holder is stood for by terminating its
 * lock session, with heartbeats too rare to notice it first.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class ReactiveFencingTokenTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private static ConnectionPool pool;

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final String namespace = "reactive-token-" + UUID.randomUUID();

	private final R2dbcAdvisoryLockTemplate locks = instance();

	private final R2dbcAdvisoryLockTemplate otherInstance = instance();

	@BeforeAll
	static void createPool() {
		pool = R2dbcConnectionFactories.direct(6);
	}

	@AfterAll
	static void disposePool() {
		pool.dispose();
	}

	@AfterEach
	void close() {
		this.locks.close();
		this.otherInstance.close();
	}

	private static R2dbcAdvisoryLockTemplate instance() {
		R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);
		locks.setHeartbeat(Duration.ofHours(1));
		return locks;
	}

	private LockRequest invocation() {
		return LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION).withTimeout(HANG);
	}

	private long key() {
		return AdvisoryLockKeys.of(this.namespace, 1);
	}

	private long token(R2dbcAdvisoryLockTemplate template) {
		return template.execute(invocation(), (handle) -> template.fencingToken()).single().block(HANG);
	}

	/** A JDBC call on the server, off the driver's event loop. */
	private static <T> Mono<T> onTheSide(Callable<T> call) {
		return Mono.fromCallable(call).subscribeOn(Schedulers.boundedElastic());
	}

	@Test
	void holdAnswersTheSameTokenToEverySubscriber() {
		List<Long> tokens = this.locks
			.execute(invocation(),
					(handle) -> this.locks.fencingToken().concatWith(this.locks.fencingToken()).collectList())
			.single()
			.block(HANG);
		assertThat(tokens.get(0)).isPositive();
		assertThat(tokens).containsOnly(tokens.get(0));
	}

	@Test
	void laterHoldersGetGreaterTokensOnThisInstanceAndAnother() {
		long first = token(this.locks);
		long second = token(this.otherInstance);
		long third = token(this.locks);
		assertThat(second).isGreaterThan(first);
		assertThat(third).isGreaterThan(second);
	}

	@Test
	void holderThatLostItsLockGetsNoTokenAfterItsSuccessors() {
		TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(pool));
		long[] successor = new long[1];
		AtomicReference<Object> asked = new AtomicReference<>();
		AtomicBoolean lostAfterwards = new AtomicBoolean();
		Mono<Void> call = this.locks.execute(invocation(), (handle) -> this.locks
			// A fenced write takes the session's marker, which the token's check then
			// finds free: no heartbeat sees the loss first.
			.lock(LockRequest.of(this.namespace, 1))
			.as(transaction::transactional)
			.then(onTheSide(() -> this.pgLocks.terminateHolderOf(key())))
			.then(onTheSide(() -> successor[0] = token(this.otherInstance)))
			.doOnNext((token) -> assertThat(handle.isLost()).isFalse())
			.then(this.locks.fencingToken().doOnNext(asked::set).doOnError(asked::set).onErrorResume((ex) -> {
				lostAfterwards.set(handle.isLost());
				return Mono.empty();
			}))).then();
		// The call itself ends with the loss too, which its rollback finds.
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> call.block(HANG));
		assertThat(asked.get()).isInstanceOf(LockLostException.class);
		assertThat(lostAfterwards).isTrue();
		assertThat(successor[0]).isPositive();
	}

	@Test
	void subscriberOutsideAnInvocationScopedCallGetsNoToken() {
		assertThatIllegalStateException().isThrownBy(() -> this.locks.fencingToken().block(HANG))
			.withMessageContaining("scope = LockScope.INVOCATION");
	}

	@Test
	void blockingHandleOfAReactiveLockNamesTheReactiveWay() {
		assertThatIllegalStateException()
			.isThrownBy(() -> this.locks.execute(invocation(), (handle) -> Mono.fromCallable(handle::fencingToken))
				.blockLast(HANG))
			.withMessageContaining("ReactiveAdvisoryLockOperations.fencingToken()");
	}

	@Test
	void holdAfterALossGetsAGreaterToken() {
		long[] tokens = new long[2];
		assertThatExceptionOfType(LockLostException.class).isThrownBy(
				() -> this.locks
					.execute(invocation(),
							(handle) -> this.locks.fencingToken()
								.doOnNext((token) -> tokens[0] = token)
								.then(onTheSide(() -> this.pgLocks.terminateHolderOf(key())))
								.then(onTheSide(() -> tokens[1] = token(this.otherInstance))))
					.blockLast(HANG));
		assertThat(tokens[1]).isGreaterThan(tokens[0]);
	}

}
