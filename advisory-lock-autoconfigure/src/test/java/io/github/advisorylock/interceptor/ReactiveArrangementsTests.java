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

package io.github.advisorylock.interceptor;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockR2dbcAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that {@link AdvisoryLocked @AdvisoryLocked} on a method returning {@code Mono} or
 * {@code Flux} takes its lock inside the subscriber's reactive transaction in every
 * arrangement an application writes: {@code @Transactional} on the class, a
 * {@link TransactionalOperator} or a {@code @Transactional} method around a caller, and
 * whatever the order of the transaction advisor and of the post processors. An
 * application on R2DBC alone, against real PostgreSQL; the reactive sibling of
 * {@link AdvisoryLockOrderingTests}.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class ReactiveArrangementsTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private static final String NAMESPACE = "reactive_arrangement";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.r2dbc(),
				BootAutoConfigurations.r2dbcTransactionManager(), BootAutoConfigurations.transaction(),
				AdvisoryLockAutoConfiguration.class, AdvisoryLockR2dbcAutoConfiguration.class))
		.withPropertyValues(R2dbcConnectionFactories.springR2dbcPropertyValues())
		.withPropertyValues("advisory-lock.default-timeout=20s")
		.withUserConfiguration(Services.class);

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final long id = Math.abs(UUID.randomUUID().getMostSignificantBits());

	private final long key = AdvisoryLockKeys.of(NAMESPACE, this.id);

	@Test
	void theLockJoinsTheTransactionOfATransactionalClass() {
		this.contextRunner.run((context) -> assertThat(
				context.getBean(TransactionalProbe.class).lockedInsideTransaction(this.id).block(HANG))
			.isTrue());
	}

	@Test
	void aTransactionalClassReleasesTheLockAtCommitToTheNextCallerWaiting() {
		this.contextRunner.run((context) -> {
			TransactionalProbe probe = context.getBean(TransactionalProbe.class);
			secondCallerWaitsUntilTheFirstEnds((end) -> probe.hold(this.id, end), true);
		});
	}

	@Test
	void aTransactionalClassReleasesTheLockAtRollbackToTheNextCallerWaiting() {
		this.contextRunner.run((context) -> {
			TransactionalProbe probe = context.getBean(TransactionalProbe.class);
			secondCallerWaitsUntilTheFirstEnds((end) -> probe.hold(this.id, end), false);
		});
	}

	@Test
	void theLockJoinsTheTransactionOfATransactionalOperatorAroundTheCaller() {
		this.contextRunner.run((context) -> {
			Probe probe = context.getBean(Probe.class);
			TransactionalOperator transaction = context.getBean(TransactionalOperator.class);
			assertThat(probe.lockedInsideTransaction(this.id).as(transaction::transactional).block(HANG)).isTrue();
			// The same method without the caller's transaction has nothing to join.
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> probe.lockedInsideTransaction(this.id).block(HANG));
		});
	}

	@Test
	void aTransactionalOperatorAroundTheCallerReleasesTheLockAtCommitAndAtRollback() {
		this.contextRunner.run((context) -> {
			Probe probe = context.getBean(Probe.class);
			TransactionalOperator transaction = context.getBean(TransactionalOperator.class);
			Function<Mono<Void>, Mono<Boolean>> call = (end) -> probe.hold(this.id, end).as(transaction::transactional);
			secondCallerWaitsUntilTheFirstEnds(call, true);
			secondCallerWaitsUntilTheFirstEnds(call, false);
		});
	}

	@Test
	void aTransactionalOperatorInsideTheLockedMethodBeginsTooLateAndIsRefused() {
		this.contextRunner.run((context) -> {
			// The lock is taken at subscription, before the method's own publisher
			// begins the operator's transaction: nothing to join, and nothing runs.
			Probe probe = context.getBean(Probe.class);
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> probe.transactionInside(this.id, context.getBean(TransactionalOperator.class))
					.block(HANG))
				.withMessageContaining("Probe.transactionInside(long, TransactionalOperator)")
				.withMessageContaining("needs an actual reactive transaction")
				.withMessageContaining("A TransactionalOperator inside the locked method begins too late");
			assertThat(probe.bodiesRun()).isZero();
		});
	}

	@Test
	void theLockJoinsTheTransactionOfATransactionalCaller() {
		this.contextRunner.run(
				(context) -> assertThat(context.getBean(Caller.class).callInTransaction(this.id).block(HANG)).isTrue());
	}

	@Test
	void aFluxJoinsTheTransactionOfATransactionalClass() {
		this.contextRunner.run((context) -> assertThat(context.getBean(TransactionalProbe.class)
			.lockedInsideTransactionFlux(this.id)
			.collectList()
			.block(HANG)).containsExactly(true, true));
	}

	@Test
	void transactionAdvisorWithHighestPrecedence() {
		this.contextRunner.withUserConfiguration(HighestPrecedenceTransactions.class)
			.run(this::everyArrangementLocksInsideTheTransaction);
	}

	@Test
	void transactionAdvisorWithLowestPrecedence() {
		this.contextRunner.withUserConfiguration(LowestPrecedenceTransactions.class)
			.run(this::everyArrangementLocksInsideTheTransaction);
	}

	@Test
	void lockPostProcessorRunningBeforeTheTransactionProxyCreator() {
		this.contextRunner.withUserConfiguration(EarlyLockPostProcessor.class).run((context) -> {
			// The lock's proxy came first, and the transaction's proxy wraps it.
			Object target = ((Advised) context.getBean(TransactionalProbe.class)).getTargetSource().getTarget();
			assertThat(AopUtils.isAopProxy(target)).isTrue();
			everyArrangementLocksInsideTheTransaction(context);
		});
	}

	@Test
	void anInvocationScopedMethodOfATransactionalClassHoldsItsLockOutsideTheMethodsTransaction() {
		this.contextRunner.run((context) -> {
			// The invocation-scoped lock is outermost: the method's own transaction
			// begins inside it, on another session than the lock's.
			assertThat(context.getBean(TransactionalProbe.class).job(this.id).block(HANG)).isTrue();
			assertThat(this.pgLocks.on(AdvisoryLockKeys.of("reactive_arrangement_job", this.id))).isEmpty();
		});
	}

	private void everyArrangementLocksInsideTheTransaction(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		assertThat(context.getBean(TransactionalProbe.class).sameMethod(this.id).block(HANG)).isTrue();
		assertThat(context.getBean(TransactionalProbe.class).lockedInsideTransaction(this.id).block(HANG)).isTrue();
		assertThat(context.getBean(Probe.class)
			.lockedInsideTransaction(this.id)
			.as(context.getBean(TransactionalOperator.class)::transactional)
			.block(HANG)).isTrue();
		assertThat(context.getBean(Caller.class).callInTransaction(this.id).block(HANG)).isTrue();
	}

	/**
	 * Subscribe a first call that holds the lock until the test ends its transaction,
	 * with a commit or a rollback, then a second one, and check that the second waits in
	 * PostgreSQL for the first one's transaction to end, and runs then.
	 */
	private void secondCallerWaitsUntilTheFirstEnds(Function<Mono<Void>, Mono<Boolean>> call, boolean commit)
			throws Exception {
		Sinks.Empty<Void> firstEnds = Sinks.empty();
		CompletableFuture<Boolean> first = call.apply(firstEnds.asMono()).toFuture();
		this.pgLocks.await("the first caller holding key " + this.key, (locks) -> first.isDone()
				|| locks.stream().anyMatch((lock) -> lock.key() == this.key && lock.granted()));
		if (first.isDone()) {
			// Say why it ended before holding the lock.
			first.join();
		}
		int firstHolder = this.pgLocks.holderPid(this.key);
		CompletableFuture<Boolean> second = call.apply(Mono.empty()).toFuture();
		this.pgLocks.awaitWaiters(this.key, 1);
		assertThat(second).isNotDone();
		if (commit) {
			firstEnds.emitEmpty(Sinks.EmitFailureHandler.FAIL_FAST);
			assertThat(first.get(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue();
		}
		else {
			firstEnds.emitError(new IllegalStateException("rolled back"), Sinks.EmitFailureHandler.FAIL_FAST);
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> first.get(HANG.toSeconds(), TimeUnit.SECONDS))
				.withCauseExactlyInstanceOf(IllegalStateException.class)
				.withMessageContaining("rolled back");
		}
		assertThat(second.get(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(this.pgLocks.on(this.key)).extracting(AdvisoryLock::pid).doesNotContain(firstHolder);
	}

	/**
	 * Return whether the lock is held by the session of the subscriber's reactive
	 * transaction: true only if the lock's advice ran inside that transaction, on its
	 * connection.
	 */
	static Mono<Boolean> lockedInsideTransaction(DatabaseClient database, long id) {
		Mono<Boolean> transactionActive = TransactionSynchronizationManager.forCurrentTransaction()
			.map(TransactionSynchronizationManager::isActualTransactionActive)
			.onErrorReturn(false);
		Mono<Boolean> heldByThisSession = database
			.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
					+ "AND pid = pg_backend_pid() AND " + PgLocks.KEY_EXPRESSION + " = $1")
			.bind(0, AdvisoryLockKeys.of(NAMESPACE, id))
			.map((row) -> row.get(0, Long.class))
			.one()
			.map((held) -> held == 1);
		return transactionActive.zipWith(heldByThisSession, Boolean::logicalAnd);
	}

	/**
	 * Return whether the lock is held by this session (the caller's transaction), then
	 * complete when {@code end} does: the lock is held until then.
	 */
	static Mono<Boolean> holdUntil(DatabaseClient database, long id, Mono<Void> end) {
		return lockedInsideTransaction(database, id).flatMap((inside) -> end.thenReturn(inside));
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Probe probe(ConnectionFactory connectionFactory) {
			return new Probe(DatabaseClient.create(connectionFactory));
		}

		@Bean
		TransactionalProbe transactionalProbe(ConnectionFactory connectionFactory) {
			return new TransactionalProbe(DatabaseClient.create(connectionFactory));
		}

		@Bean
		Caller caller(Probe probe) {
			return new Caller(probe);
		}

		@Bean
		TransactionalOperator transactionalOperator(ReactiveTransactionManager transactionManager) {
			return TransactionalOperator.create(transactionManager);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = Ordered.HIGHEST_PRECEDENCE)
	static class HighestPrecedenceTransactions {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = Ordered.LOWEST_PRECEDENCE)
	static class LowestPrecedenceTransactions {

	}

	@Configuration(proxyBeanMethods = false)
	static class EarlyLockPostProcessor {

		@Bean
		static AdvisoryLockBeanPostProcessor advisoryLockBeanPostProcessor(
				ObjectProvider<AdvisoryLockOperations> operations,
				ObjectProvider<ReactiveAdvisoryLockOperations> reactiveOperations) {
			AdvisoryLockBeanPostProcessor postProcessor = new AdvisoryLockBeanPostProcessor(operations::getObject,
					reactiveOperations::getObject);
			postProcessor.setOrder(Ordered.HIGHEST_PRECEDENCE);
			postProcessor.setProxyTargetClass(true);
			return postProcessor;
		}

	}

	/**
	 * Locked methods without a transaction of their own.
	 */
	static class Probe {

		private final AtomicInteger bodiesRun = new AtomicInteger();

		private final DatabaseClient database;

		Probe(DatabaseClient database) {
			this.database = database;
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "#id")
		public Mono<Boolean> lockedInsideTransaction(long id) {
			return ReactiveArrangementsTests.lockedInsideTransaction(this.database, id);
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "#id")
		public Mono<Boolean> hold(long id, Mono<Void> end) {
			return holdUntil(this.database, id, end);
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "#id")
		public Mono<Boolean> transactionInside(long id, TransactionalOperator transaction) {
			this.bodiesRun.incrementAndGet();
			return ReactiveArrangementsTests.lockedInsideTransaction(this.database, id).as(transaction::transactional);
		}

		/** How often a locked method's body ran, read through the proxy. */
		public int bodiesRun() {
			return this.bodiesRun.get();
		}

	}

	/**
	 * Locked methods of a class whose methods are all transactional.
	 */
	@Transactional
	static class TransactionalProbe {

		private final DatabaseClient database;

		TransactionalProbe(DatabaseClient database) {
			this.database = database;
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "#id")
		public Mono<Boolean> lockedInsideTransaction(long id) {
			return ReactiveArrangementsTests.lockedInsideTransaction(this.database, id);
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "#id")
		public Flux<Boolean> lockedInsideTransactionFlux(long id) {
			return ReactiveArrangementsTests.lockedInsideTransaction(this.database, id).repeat(1);
		}

		@Transactional
		@AdvisoryLocked(namespace = NAMESPACE, key = "#id")
		public Mono<Boolean> sameMethod(long id) {
			return ReactiveArrangementsTests.lockedInsideTransaction(this.database, id);
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "#id")
		public Mono<Boolean> hold(long id, Mono<Void> end) {
			return holdUntil(this.database, id, end);
		}

		@AdvisoryLocked(namespace = "reactive_arrangement_job", key = "#id", scope = LockScope.INVOCATION)
		public Mono<Boolean> job(long id) {
			long jobKey = AdvisoryLockKeys.of("reactive_arrangement_job", id);
			PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());
			Mono<Integer> thisSession = this.database.sql("SELECT pg_backend_pid()")
				.map((row) -> row.get(0, Integer.class))
				.one();
			Mono<Integer> holder = Mono.fromCallable(() -> pgLocks.holderPid(jobKey))
				.subscribeOn(Schedulers.boundedElastic());
			Mono<Boolean> transactionActive = TransactionSynchronizationManager.forCurrentTransaction()
				.map(TransactionSynchronizationManager::isActualTransactionActive);
			return Mono.zip(thisSession, holder, transactionActive)
				.map((read) -> !read.getT1().equals(read.getT2()) && read.getT3());
		}

	}

	static class Caller {

		private final Probe probe;

		Caller(Probe probe) {
			this.probe = probe;
		}

		@Transactional
		public Mono<Boolean> callInTransaction(long id) {
			return this.probe.lockedInsideTransaction(id);
		}

	}

}
