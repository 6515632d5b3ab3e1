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
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.FreezableRelay;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.reactive.TransactionalOperator;
import org.springframework.transaction.support.DefaultTransactionDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The lock contract on Spring's reactive stack, run against every topology by
 * subclassing: a subclass gives the R2DBC {@link ConnectionFactory} the application would
 * use (direct to PostgreSQL, or through PgBouncer), and every lock here is taken through
 * {@link io.github.advisorylock.ReactiveAdvisoryLockOperations} inside a real reactive
 * transaction ({@link TransactionalOperator} on an {@link R2dbcTransactionManager}),
 * while other sessions hold keys over JDBC and {@code pg_locks} is read directly from the
 * server. The contract both stacks share runs here through {@link R2dbcLockStack}; the
 * tests of this class are what only the reactive stack has: subscription, cancellation,
 * the Reactor context, the diagnosis on a connection of its own.
 *
 * <p>
 * The test thread only subscribes and waits for facts of the server; the JDBC reads of
 * {@code pg_locks} inside a pipeline run on Reactor's bounded elastic scheduler, never on
 * the driver's event loop.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
abstract class AbstractReactiveLockContractTests extends AbstractLockContractTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	/** Server-side view of the locks, never through the topology under test. */
	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private R2dbcTransactionManager transactionManager;

	private TransactionalOperator transaction;

	private DatabaseClient database;

	private R2dbcAdvisoryLockTemplate locks;

	private LockStack stack;

	/**
	 * Return the connection factory of the topology under test: what the reactive
	 * transactions and their locks connect through.
	 * @return the connection factory
	 */
	protected abstract ConnectionFactory connectionFactory();

	/**
	 * Return the JDBC URL of the topology under test, for a pool of its own through a
	 * relay.
	 * @return the URL
	 */
	protected abstract String jdbcUrl();

	@BeforeEach
	void wire() {
		ConnectionFactory connectionFactory = connectionFactory();
		this.transactionManager = new R2dbcTransactionManager(connectionFactory);
		this.transaction = TransactionalOperator.create(this.transactionManager);
		this.database = DatabaseClient.create(connectionFactory);
		this.locks = new R2dbcAdvisoryLockTemplate(connectionFactory);
		this.stack = new R2dbcLockStack(this.locks, this.transaction, this.database);
	}

	@Override
	protected LockStack stack() {
		return this.stack;
	}

	/** A JDBC read of the server, off the driver's event loop. */
	private static <T> Mono<T> onTheSide(Callable<T> read) {
		return Mono.fromCallable(read).subscribeOn(Schedulers.boundedElastic());
	}

	private Mono<Integer> backendPid() {
		return this.database.sql("SELECT pg_backend_pid()").map((row) -> row.get(0, Integer.class)).one();
	}

	@Test
	void aBusyErrorNamesTheHoldersItDiagnosedOnAConnectionOfItsOwn() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.locks.lock(LockRequest.of(this.namespace, 7).withWaitMode(WaitMode.TRY))
					.as(this.transaction::transactional)
					.block(HANG))
				.satisfies((ex) -> {
					assertThat(ex.getHolders()).extracting(LockHolderInfo::pid).containsExactly(holder.pid());
					assertThat(ex).hasMessageContaining("pid " + holder.pid());
				});
			// After a timeout the transaction is aborted: diagnosed on a connection of
			// its
			// own.
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.locks.lock(LockRequest.of(this.namespace, 7).withTimeout(Duration.ofMillis(200)))
					.as(this.transaction::transactional)
					.block(HANG))
				.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
					.containsExactly(holder.pid()));
		}
	}

	@Test
	void closingTheTemplateCancelsATransactionScopedWaitAndTheWorkIsNeverSubscribed() {
		AtomicBoolean subscribed = new AtomicBoolean();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			CompletableFuture<Object> waiter = this.locks
				.locked(LockRequest.of(this.namespace, 7).withTimeout(HANG),
						Mono.fromCallable(() -> subscribed.getAndSet(true)))
				.as(this.transaction::transactional)
				.map(Object.class::cast)
				.toFuture();
			this.pgLocks.awaitWaiters(key(7), 1);
			this.locks.close();
			assertShuttingDown(waiter);
			// The wait ended on the server, while the holder still holds the key.
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
			holder.commit();
		}
		assertThat(subscribed).isFalse();
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> this.locks.lock(this.namespace, 7).as(this.transaction::transactional).block(HANG))
			.withMessageContaining("the application is shutting down");
	}

	@Test
	void closingTheTemplateCancelsAnInvocationScopedWaitAndTheWorkIsNeverSubscribed() {
		AtomicBoolean subscribed = new AtomicBoolean();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			CompletableFuture<List<Boolean>> waiter = this.locks
				.execute(invocation(7).withTimeout(HANG),
						(handle) -> Mono.fromCallable(() -> subscribed.getAndSet(true)))
				.collectList()
				.toFuture();
			this.pgLocks.awaitWaiters(key(7), 1);
			this.locks.close();
			assertShuttingDown(waiter);
			assertThat(this.pgLocks.on(key(7))).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
			holder.commit();
		}
		assertThat(subscribed).isFalse();
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> this.locks.execute(invocation(7), (handle) -> Mono.just(1)).blockLast(HANG))
			.withMessageContaining("the application is shutting down");
	}

	private static void assertShuttingDown(CompletableFuture<?> waiter) {
		assertThat(waiter).failsWithin(HANG)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(CannotAcquireLockException.class)
			.isNotInstanceOf(LockBusyException.class)
			.withMessageContaining("the application is shutting down");
	}

	@Test
	void refusesATransactionAboveReadCommittedBeforeTakingAnything() {
		DefaultTransactionDefinition repeatableRead = new DefaultTransactionDefinition();
		repeatableRead.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
		TransactionalOperator transaction = TransactionalOperator
			.create(new R2dbcTransactionManager(connectionFactory()), repeatableRead);
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.locks.lock(this.namespace, 1).as(transaction::transactional).block(HANG))
			.withMessageContaining("needs isolation READ COMMITTED, but the transaction runs repeatable read");
		assertThat(this.pgLocks.on(key(1))).isEmpty();
	}

	@Test
	void aNewTransactionAskingForAKeyItsSuspendedOuterOneHoldsIsRefusedAtOnce() {
		TransactionalOperator requiresNew = TransactionalOperator.create(this.transactionManager,
				new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW));
		// A timeout longer than the harness waits: only the refusal ends the call in
		// time.
		LockRequest inner = LockRequest.of(this.namespace, 1).withTimeout(HANG.multipliedBy(4));
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.locks.lock(this.namespace, 1)
				.then(this.locks.lock(inner).as(requiresNew::transactional))
				.as(this.transaction::transactional)
				.block(HANG))
			.withMessageContaining("is held EXCLUSIVE by a transaction of this same subscriber that is suspended");
		assertThat(this.pgLocks.on(key(1))).isEmpty();
	}

	@Test
	void aNewTransactionOfALimitIsRefusedOnlyWhenItsSuspendedOuterOnesHoldEveryPermit() {
		TransactionalOperator requiresNew = TransactionalOperator.create(this.transactionManager,
				new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW));
		// A timeout longer than the harness waits: only the refusal ends the call in
		// time.
		LockRequest limit = limit(2).withTimeout(HANG.multipliedBy(4));
		AtomicBoolean innerRan = new AtomicBoolean();
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.locks.lock(limit)
				.then(this.locks.lock(limit)
					.then(Mono.fromRunnable(() -> innerRan.set(true)))
					.then(this.locks.lock(limit).as(requiresNew::transactional))
					.as(requiresNew::transactional))
				.as(this.transaction::transactional)
				.block(HANG))
			.withMessageContaining("Every one of the 2 permits of advisory lock " + this.namespace
					+ ":tenant is held by a transaction of this same subscriber that is suspended");
		assertThat(innerRan).as("the inner transaction took the other permit, whichever the outer one holds").isTrue();
		this.pgLocks.await("no permit left held", List::isEmpty);
	}

	@Test
	void refusesACallWithoutAReactiveTransaction() {
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.locks.lock(this.namespace, 1).block(HANG))
			.withMessageContaining("needs an actual reactive transaction, and the subscriber has none")
			.withMessageContaining("TransactionalOperator.transactional(...)");
		assertThat(this.locks.isHeld(this.namespace, 1).block(HANG)).isFalse();
	}

	@Test
	void skipCompletesEmptyWithoutSubscribingTheWorkAndLeavesNothingHeld() {
		List<Long> ascending = List.of(key("a"), key("b"), key("c")).stream().sorted().toList();
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), ascending.get(1))) {
			AtomicBoolean subscribed = new AtomicBoolean();
			List<String> elements = this.locks
				.execute(LockRequest.of(this.namespace, "a", "b", "c").withWaitMode(WaitMode.SKIP),
						(handle) -> Mono.fromCallable(() -> subscribed.getAndSet(true)).thenReturn("ran"))
				.collectList()
				.as(this.transaction::transactional)
				.block(HANG);
			assertThat(elements).isEmpty();
			assertThat(subscribed).isFalse();
			assertThat(this.pgLocks.all())
				.containsExactly(new AdvisoryLock(holder.pid(), ascending.get(1), "ExclusiveLock", true));
		}
	}

	@Test
	void workIsSubscribedOnlyOnceTheLocksAreHeld() throws Exception {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			AtomicBoolean subscribed = new AtomicBoolean();
			CompletableFuture<List<Integer>> work = this.locks
				.locked(LockRequest.of(this.namespace, 7).withTimeout(HANG),
						Flux.range(1, 3).doOnSubscribe((subscription) -> subscribed.set(true)))
				.collectList()
				.as(this.transaction::transactional)
				.toFuture();
			this.pgLocks.awaitWaiters(key(7), 1);
			assertThat(subscribed).isFalse();
			holder.commit();
			assertThat(work.get(HANG.toSeconds(), TimeUnit.SECONDS)).containsExactly(1, 2, 3);
			assertThat(subscribed).isTrue();
		}
	}

	@Test
	void aCancelledWaitStopsWaitingOnTheServerAtOnce() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			// A timeout longer than the harness waits for a fact: only the cancel can end
			// the wait in time.
			Disposable waiter = this.locks.lock(LockRequest.of(this.namespace, 7).withTimeout(HANG.multipliedBy(4)))
				.as(this.transaction::transactional)
				.subscribe();
			this.pgLocks.awaitWaiters(key(7), 1);
			waiter.dispose();
			this.pgLocks.await("the cancelled waiter gone from pg_locks",
					(locks) -> locks.stream().noneMatch((lock) -> !lock.granted()));
			assertThat(this.pgLocks.all()).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

	@Test
	void aCancelledWaitWithoutATryFirstStopsWaitingOnTheServerAtOnce() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			// A try finds the key held: the next call waits for it at once.
			Boolean taken = this.locks.tryLock(this.namespace, 7).as(this.transaction::transactional).block(HANG);
			assertThat(taken).isFalse();
			Disposable waiter = this.locks.lock(LockRequest.of(this.namespace, 7).withTimeout(HANG.multipliedBy(4)))
				.as(this.transaction::transactional)
				.subscribe();
			this.pgLocks.awaitWaiters(key(7), 1);
			assertThat(this.pgLocks.waiterStatement(key(7))).contains(LockSql.KEPT_LOCK_TIMEOUT);
			waiter.dispose();
			this.pgLocks.await("the cancelled waiter gone from pg_locks",
					(locks) -> locks.stream().noneMatch((lock) -> !lock.granted()));
			assertThat(this.pgLocks.all()).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

	@Test
	void aLateCancelOfAWaitNeverReachesTheStatementOfTheConnectionsNextBorrower() throws Exception {
		assertALateCancelReachesNoNextBorrower(LockRequest.of(this.namespace, 7), key(7));
	}

	@Test
	void aLateCancelOfALimitsWaitNeverReachesTheStatementOfTheConnectionsNextBorrower() throws Exception {
		assertALateCancelReachesNoNextBorrower(limit(2), slot("tenant", 0), slot("tenant", 1));
	}

	/**
	 * An invocation-scoped wait runs on a connection of its own, straight from the
	 * driver, which its close cancels, waits for, rolls back and closes: the pool's
	 * borrowers never meet its cancel.
	 */
	@Test
	void aLateCancelOfAnInvocationScopedWaitNeverReachesAStatementOfThePool() throws Exception {
		assertALateCancelReachesNoNextBorrower(invocation(7), key(7));
	}

	/**
	 * A waiter of a pool of one connection cancels; the relay holds its cancel request
	 * back until the pool's next borrower runs a statement, then lets it through. The
	 * request must not cancel that statement: the waiter's rollback waits for the
	 * request's answer, or its connection is closed rather than handed on. The wait is
	 * granted meanwhile, as a wait ends just before its cancel arrives.
	 */
	private void assertALateCancelReachesNoNextBorrower(LockRequest request, long... held) throws Exception {
		long borrowersKey = key("the next borrower");
		try (CancelledWaiter waiter = new CancelledWaiter(request, held)) {
			waiter.holder.commit();
			CompletableFuture<Integer> borrower = waiter.borrow(borrowersKey);
			this.pgLocks.awaitWaiters(borrowersKey, 1);
			waiter.releaseCancels();
			waiter.borrowersHolder.commit();
			assertThat(borrower).succeedsWithin(HANG).isEqualTo(1);
		}
		this.pgLocks.await("no lock left", List::isEmpty);
	}

	/**
	 * The way it should go: the pool's next borrower waits for the connection until the
	 * cancelled waiter's cancel request is answered, then gets that same connection,
	 * neither cancelled nor replaced.
	 */
	@Test
	void aCancelledWaitersConnectionGoesToTheNextBorrowerOnceItsCancelRequestIsAnswered() throws Exception {
		long borrowersKey = key("the next borrower");
		try (CancelledWaiter waiter = new CancelledWaiter(LockRequest.of(this.namespace, 7), key(7))) {
			CompletableFuture<Integer> borrower = waiter.borrow(borrowersKey);
			await().atMost(HANG).until(() -> waiter.pool.getMetrics().orElseThrow().pendingAcquireSize() == 1);
			waiter.releaseCancels();
			this.pgLocks.awaitWaiters(borrowersKey, 1);
			waiter.borrowersHolder.commit();
			assertThat(borrower).succeedsWithin(HANG).isEqualTo(1);
			assertThat(waiter.relay.connectionsOpened()).as("connections opened through the relay").isEqualTo(1);
		}
		this.pgLocks.await("no lock left", List::isEmpty);
	}

	/**
	 * A waiter on a pool of one connection through a relay that holds cancel requests
	 * back, cancelled while it waits, its request held; with a session that holds the
	 * waited keys, and one that holds the next borrower's.
	 */
	private final class CancelledWaiter implements AutoCloseable {

		final FreezableRelay relay = new FreezableRelay(jdbcUrl());

		final ConnectionPool pool = R2dbcConnectionFactories.pool(this.relay.url(), 1);

		final R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(this.pool);

		final LockHolder holder;

		final LockHolder borrowersHolder;

		CancelledWaiter(LockRequest request, long... held) throws Exception {
			this.holder = LockHolder.exclusive(TestDatabase.get().dataSource(), held);
			this.borrowersHolder = LockHolder.exclusive(TestDatabase.get().dataSource(), key("the next borrower"));
			this.relay.holdCancelRequests();
			TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(this.pool));
			LockRequest waiting = request.withTimeout(HANG.multipliedBy(4));
			// A limit waits in slices: a cancel between two finds no statement to cancel
			// and sends nothing, and the transaction just ends. Then the waiter waits
			// again.
			for (int attempt = 1; this.relay.cancelRequestsHeld() == 0; attempt++) {
				assertThat(attempt).as("attempts to cancel a waiter inside a slice").isLessThanOrEqualTo(20);
				Disposable waiter = (request.scope() == LockScope.INVOCATION)
						? this.locks.execute(waiting, (handle) -> Mono.never()).subscribe()
						: this.locks.lock(waiting).as(transaction::transactional).subscribe();
				AbstractReactiveLockContractTests.this.pgLocks.await("the waiter",
						(all) -> all.stream().anyMatch((lock) -> !lock.granted()));
				waiter.dispose();
				// Its request is held, or its transaction gave the connection back
				// without one. An invocation-scoped session's connection is none of the
				// pool's, and its close always sends one.
				await().atMost(HANG)
					.until(() -> this.relay.cancelRequestsHeld() > 0
							|| this.pool.getMetrics().orElseThrow().acquiredSize() == 0
									&& request.scope() != LockScope.INVOCATION);
			}
		}

		/** Run a statement of the pool's next borrower that waits for its key. */
		CompletableFuture<Integer> borrow(long borrowersKey) {
			return DatabaseClient.create(this.pool)
				.sql("SELECT 1 FROM pg_advisory_xact_lock(" + borrowersKey + ")")
				.map((row) -> row.get(0, Integer.class))
				.one()
				.toFuture();
		}

		/** Let the held requests through, and wait until the server answered each. */
		void releaseCancels() {
			this.relay.releaseCancelRequests();
			// An invocation-scoped wait sends one more, from its session's close, which
			// may arrive after the release.
			await().atMost(HANG).until(() -> this.relay.cancelRequestsAnswered() >= this.relay.cancelRequestsHeld());
		}

		@Override
		public void close() throws Exception {
			try {
				this.locks.close();
				this.pool.dispose();
			}
			finally {
				this.holder.close();
				this.borrowersHolder.close();
				this.relay.close();
			}
		}

	}

	@Test
	void isHeldSeesTheTransactionsOwnLocksOnly() {
		List<Boolean> held = Flux
			.concat(this.locks.isHeld(this.namespace, 1), this.locks.lock(this.namespace, 1).then(Mono.empty()),
					this.locks.isHeld(this.namespace, 1), this.locks.isHeld(this.namespace, 2))
			.collectList()
			.as(this.transaction::transactional)
			.block(HANG);
		assertThat(held).containsExactly(false, true, false);
	}

	@Test
	void anInvocationScopedLimitServesATransactionScopedCallOfTheSameLimitInsideItWithItsPermit() {
		LockRequest limit = LockRequest.of(this.namespace, "tenant").withPermits(3);
		List<Long> slots = List.of(slot("tenant", 0), slot("tenant", 1), slot("tenant", 2));
		Callable<List<Long>> slotsHeld = () -> this.pgLocks.all()
			.stream()
			.filter((lock) -> lock.granted() && slots.contains(lock.key()))
			.map(AdvisoryLock::key)
			.toList();
		try (LockHolder plain = LockHolder.exclusive(TestDatabase.get().dataSource(), key("tenant"))) {
			// The call's session takes permit 1; the transaction inside it is a fenced
			// write of that permit, and takes no second one.
			List<Long> held = this.locks.execute(limit.withScope(LockScope.INVOCATION),
					(handle) -> this.locks.lock(limit).then(onTheSide(slotsHeld)).as(this.transaction::transactional))
				.blockLast(HANG);
			assertThat(held).containsExactlyInAnyOrder(slot("tenant", 0), slot("tenant", 1));
			assertThat(this.pgLocks.all()).extracting(AdvisoryLock::key).containsExactly(key("tenant"));
		}
	}

	@Test
	void anInvocationScopedCallWhoseLinkFrozeEndsWithTheLossRatherThanWaitForTheLink() throws Exception {
		try (FreezableRelay relay = new FreezableRelay(jdbcUrl())) {
			ConnectionPool pool = R2dbcConnectionFactories.pool(relay.url(), 1);
			try {
				R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);
				// A dead-man switch of 600 ms: the heartbeat on the frozen link soon
				// gives up.
				locks.setHeartbeat(Duration.ofMillis(200));
				// Nothing on the frozen link answers: neither the release's rollback nor
				// the close's may wait for it.
				assertThatExceptionOfType(LockLostException.class)
					.isThrownBy(() -> locks.execute(invocation(1), (handle) -> onTheSide(() -> {
						relay.freeze();
						await().atMost(HANG).until(handle::isLost);
						return "done";
					})).blockLast(HANG));
				// The server ends the silent session at its idle timeout.
				this.pgLocks.await("the frozen lock session ended by the server", List::isEmpty);
			}
			finally {
				pool.dispose();
			}
		}
	}

	@Test
	void cancellingAHeldInvocationScopedLockReleasesItAtOnce() {
		Disposable held = this.locks.execute(invocation(1), (handle) -> Flux.never()).subscribe();
		this.pgLocks.await("the holder", (locks) -> locks.size() == 1 && locks.get(0).granted());
		held.dispose();
		this.pgLocks.await("no lock left", List::isEmpty);
	}

	@Test
	void cancellingAWaitingInvocationScopedLockStopsTheWaitAtOnce() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			Disposable waiter = this.locks
				.execute(invocation(7).withTimeout(HANG.multipliedBy(4)), (handle) -> Mono.just(1))
				.subscribe();
			this.pgLocks.awaitWaiters(key(7), 1);
			waiter.dispose();
			this.pgLocks.await("the cancelled waiter gone from pg_locks",
					(locks) -> locks.stream().noneMatch((lock) -> !lock.granted()));
			assertThat(this.pgLocks.all()).extracting(AdvisoryLock::pid).containsOnly(holder.pid());
		}
	}

	@Test
	void aLostSessionIsSeenThroughTheHandleAndCheckHeldAndFailsTheCallEvenIfTheWorkGoesOn() {
		// Soon finds the terminated session lost; never misses three in a row (the
		// dead-man switch) on a loaded machine.
		this.locks.setHeartbeat(Duration.ofSeconds(5));
		List<Object> seen = new CopyOnWriteArrayList<>();
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.locks.execute(invocation(1), (handle) -> onTheSide(() -> {
				// Waits until the backend has exited, which releases the key.
				this.pgLocks.terminateHolderOf(key(1));
				await().atMost(HANG).until(handle::isLost);
				return handle.isLost();
			}).flatMap((lost) -> this.locks.checkHeld()
				.thenReturn((Object) "not thrown")
				.onErrorResume(LockLostException.class, (ex) -> Mono.just(ex))
				.doOnNext((checked) -> seen.addAll(List.of(lost, checked))))).blockLast(HANG));
		assertThat(seen.get(0)).isEqualTo(true);
		assertThat(seen.get(1)).isInstanceOf(LockLostException.class);
		assertThat(this.pgLocks.on(key(1))).isEmpty();
	}

	@Test
	void anInvocationScopeInsideAReactiveTransactionIsRefused() {
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.locks.execute(invocation(1), (handle) -> Mono.just(1))
				.as(this.transaction::transactional)
				.blockLast(HANG))
			.withMessageContaining("was called inside a transaction that began before it");
		assertThat(this.pgLocks.on(key(1))).isEmpty();
	}

	@Test
	void aTransactionScopedLockForAKeyTheEnclosingInvocationHoldsDoesNotWait() {
		Boolean held = this.locks
			.execute(invocation(1),
					(handle) -> this.locks.lock(LockRequest.of(this.namespace, 1).withTimeout(HANG))
						.then(this.locks.isHeld(this.namespace, 1))
						.as(this.transaction::transactional))
			.single()
			.block(HANG);
		assertThat(held).isTrue();
	}

	@Test
	void invocationScopeSkipCompletesEmptyWithoutSubscribingTheWork() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(1))) {
			AtomicBoolean subscribed = new AtomicBoolean();
			List<Integer> elements = this.locks
				.execute(invocation(1).withWaitMode(WaitMode.SKIP),
						(handle) -> Mono.fromCallable(() -> subscribed.getAndSet(true)).thenReturn(1))
				.collectList()
				.block(HANG);
			assertThat(elements).isEmpty();
			assertThat(subscribed).isFalse();
		}
	}

	@Test
	void oneInvocationScopedLockMoreThanMaxConnectionsIsRefusedAtOnce() {
		this.locks.setMaxInvocationConnections(1);
		Disposable held = this.locks.execute(invocation(1), (handle) -> Flux.never()).subscribe();
		try {
			this.pgLocks.await("the holder", (locks) -> locks.size() == 1 && locks.get(0).granted());
			assertThatExceptionOfType(DataAccessResourceFailureException.class)
				.isThrownBy(() -> this.locks.execute(invocation(2), (handle) -> Mono.just(2)).blockLast(HANG))
				.withMessageContaining("advisory-lock.invocation.max-connections");
		}
		finally {
			held.dispose();
		}
		this.pgLocks.await("no lock left", List::isEmpty);
	}

	@Test
	void aFailureOtherThanATimeoutKeepsSpringsVocabulary() {
		// A statement_timeout shorter than the lock timeout ends the wait: not a busy
		// lock.
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key(7))) {
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> this.database.sql("SET LOCAL statement_timeout = '100ms'")
					.then()
					.then(this.locks.lock(LockRequest.of(this.namespace, 7).withTimeout(HANG)))
					.as(this.transaction::transactional)
					.block(HANG))
				.isNotInstanceOf(LockBusyException.class)
				.withMessageContaining("Acquire advisory lock " + this.namespace);
		}
	}

}
