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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.InstanceOfAssertFactories.list;

/**
 * Tests of fenced writes on the reactive stack, from a user's view, as
 * {@link AbstractFencedWritesTests} has them on JDBC: a transaction-scoped lock, in a
 * reactive transaction, for a key that an enclosing invocation-scoped call of the same
 * subscriber holds takes the key's fence lock and checks that the enclosing lock's own
 * session still holds the key. The enclosing call is found in the Reactor context, not on
 * a thread.
 *
 * <p>
 * Two templates on one database stand for two instances: the old holder and the new one.
 * A paused or cut-off old holder is stood for by terminating its lock session, as the
 * server would after its dead-man switch. Each subclass gives the application's
 * connection factory: straight to the database, or through PgBouncer in transaction mode.
 * The JDBC reads of the server run on Reactor's bounded elastic scheduler, never on the
 * driver's event loop.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
abstract class AbstractReactiveFencedWritesTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	/** Long enough that no heartbeat notices a loss while a test runs. */
	private static final Duration LONG_HEARTBEAT = Duration.ofHours(1);

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final JdbcTemplate observer = new JdbcTemplate(TestDatabase.get().dataSource());

	private final String namespace = "reactive-fenced-" + UUID.randomUUID();

	private TransactionalOperator transaction;

	private DatabaseClient database;

	private R2dbcAdvisoryLockTemplate locks;

	/**
	 * Return the connection factory of the topology under test: what the reactive
	 * transactions and their writes connect through, and the lock sessions too.
	 * @return the connection factory
	 */
	protected abstract ConnectionFactory connectionFactory();

	@BeforeEach
	void wire() {
		this.observer.execute("CREATE TABLE IF NOT EXISTS fenced_rows (namespace text NOT NULL, writer text NOT NULL)");
		ConnectionFactory connectionFactory = connectionFactory();
		this.transaction = TransactionalOperator.create(new R2dbcTransactionManager(connectionFactory));
		this.database = DatabaseClient.create(connectionFactory);
		this.locks = instance("old-holder");
	}

	private R2dbcAdvisoryLockTemplate instance(String name) {
		R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(connectionFactory());
		locks.setHeartbeat(LONG_HEARTBEAT);
		locks.setInstanceName(name);
		return locks;
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	private LockRequest invocation(Object... keys) {
		return LockRequest.of(this.namespace, keys).withScope(LockScope.INVOCATION);
	}

	private Mono<Void> write(String writer) {
		return this.database.sql("INSERT INTO fenced_rows (namespace, writer) VALUES (:namespace, :writer)")
			.bind("namespace", this.namespace)
			.bind("writer", writer)
			.then();
	}

	private Mono<Long> rows(String writer) {
		return this.database.sql("SELECT count(*) FROM fenced_rows WHERE namespace = :namespace AND writer = :writer")
			.bind("namespace", this.namespace)
			.bind("writer", writer)
			.map((row) -> row.get(0, Long.class))
			.one();
	}

	private int committedRows(String writer) {
		Integer rows = this.observer.queryForObject(
				"SELECT count(*) FROM fenced_rows WHERE namespace = ? AND writer = ?", Integer.class, this.namespace,
				writer);
		return (rows != null) ? rows : 0;
	}

	/** A JDBC read of the server, off the driver's event loop. */
	private static <T> Mono<T> onTheSide(Callable<T> read) {
		return Mono.fromCallable(read).subscribeOn(Schedulers.boundedElastic());
	}

	@Test
	void aReactiveTransactionFencedUnderAHeldLockCommits() {
		List<Object> seen = this.locks
			.execute(invocation(1), (handle) -> this.locks.lock(LockRequest.of(this.namespace, 1))
				.then(write("holder"))
				.then(onTheSide(
						() -> List.of(this.pgLocks.holderPid(key(1)), this.pgLocks.fences(), this.pgLocks.markers())))
				.as(this.transaction::transactional))
			.single()
			.block(HANG);
		int holder = (Integer) seen.get(0);
		// The writer's transaction holds the fence, and the lock session still holds the
		// key and its marker, which the check probes.
		assertThat(seen.get(1)).asInstanceOf(list(AdvisoryLock.class)).singleElement().satisfies((fence) -> {
			assertThat(fence.key()).isEqualTo(key(1));
			assertThat(fence.granted()).isTrue();
			assertThat(fence.mode()).isEqualTo("ExclusiveLock");
			assertThat(fence.pid()).isNotEqualTo(holder);
		});
		assertThat(seen.get(2)).asInstanceOf(list(AdvisoryLock.class))
			.singleElement()
			.extracting(AdvisoryLock::pid)
			.isEqualTo(holder);
		assertThat(committedRows("holder")).isOne();
		assertThat(this.pgLocks.fences()).isEmpty();
	}

	@Test
	void aFencedWriteAfterTheLockSessionWasTerminatedFailsBeforeItsBodyRunsAndBeforeAnyHeartbeat() {
		AtomicBoolean ran = new AtomicBoolean();
		Throwable refused = this.locks.execute(invocation(1), (handle) -> {
			// A first fenced write, before the loss: the session takes its marker.
			Mono<Void> beforeLoss = this.locks.lock(LockRequest.of(this.namespace, 1))
				.then(write("before-loss"))
				.as(this.transaction::transactional);
			Mono<Void> afterLoss = this.locks.lock(LockRequest.of(this.namespace, 1))
				.then(Mono.fromRunnable(() -> ran.set(true)))
				.then(write("old-holder"))
				.as(this.transaction::transactional);
			return beforeLoss.then(onTheSide(() -> this.pgLocks.terminateHolderOf(key(1))))
				// No heartbeat has run, and none will while the test runs: only the fence
				// can tell.
				.doOnNext((pid) -> assertThat(handle.isLost()).isFalse())
				.then(afterLoss)
				.onErrorResume((ex) -> {
					// Reported lost at once, not at the next heartbeat.
					assertThat(handle.isLost()).isTrue();
					return Mono.error(ex);
				});
		}).then().map(Throwable.class::cast).onErrorResume(Mono::just).block(HANG);
		assertThat(refused).isInstanceOf(LockLostException.class).hasMessageContaining(this.namespace + ":[1]");
		assertThat(ran).isFalse();
		assertThat(committedRows("old-holder")).isZero();
		assertThat(committedRows("before-loss")).isOne();
	}

	@Test
	void theNewHoldersFirstFencedWriteWaitsForTheOldHoldersFencedTransactionAndSeesItsRows() throws Exception {
		Sinks.Empty<Void> writing = Sinks.empty();
		Sinks.Empty<Void> release = Sinks.empty();
		CompletableFuture<Void> oldHolder = this.locks
			.execute(invocation(1),
					(handle) -> this.locks.lock(LockRequest.of(this.namespace, 1))
						.then(write("old-holder"))
						.then(Mono.fromRunnable(writing::tryEmitEmpty))
						.then(release.asMono())
						.as(this.transaction::transactional))
			.then()
			.toFuture();
		writing.asMono().block(HANG);
		this.pgLocks.terminateHolderOf(key(1));
		R2dbcAdvisoryLockTemplate newLocks = instance("new-holder");
		CompletableFuture<Long> newHolder = newLocks
			.execute(invocation(1).withTimeout(HANG),
					(handle) -> newLocks.lock(LockRequest.of(this.namespace, 1))
						.then(rows("old-holder"))
						.as(this.transaction::transactional))
			.single()
			.toFuture();
		// The new holder holds the key, and its first fenced write waits for the fence
		// the old holder's transaction still holds.
		this.pgLocks.awaitFenceWaiters(key(1), 1);
		assertThat(newHolder).isNotDone();
		release.tryEmitEmpty();
		// The old holder's call reports that its lock was lost while it wrote.
		assertThat(oldHolder).failsWithin(HANG)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		assertThat(newHolder.get(HANG.toSeconds(), TimeUnit.SECONDS)).isOne();
	}

	@Test
	void aSubscriptionOutsideTheCallWaitsForItsOwnKeyAndItsBusyErrorSaysSoAndPointsAtWrap() {
		LockRequest briefly = LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(200));
		Throwable busy = this.locks.execute(invocation(1),
				// Subscribed on its own, without the call's context: outside the call.
				(handle) -> Mono
					.fromCallable(() -> catchThrowable(
							() -> this.locks.lock(briefly).as(this.transaction::transactional).block(HANG)))
					.subscribeOn(Schedulers.boundedElastic()))
			.single()
			.block(HANG);
		assertThat(busy).isInstanceOf(LockBusyException.class)
			.hasMessageContaining("the holder is this application's own invocation-scoped call on advisory lock "
					+ this.namespace + ":[1]")
			.hasMessageContaining("outside its subscription");
	}

	@Test
	void outsideAReactiveTransactionANestedCallForAHeldKeyStaysReentrantWithoutAFence() {
		List<AdvisoryLock> fences = this.locks
			.execute(invocation(1),
					(handle) -> this.locks.lock(LockRequest.of(this.namespace, 1))
						.then(onTheSide(this.pgLocks::fences)))
			.single()
			.block(HANG);
		assertThat(fences).isEmpty();
	}

}
