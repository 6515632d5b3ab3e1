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

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that the lock is taken inside the transaction wherever {@code @Transactional}
 * sits and in whatever order the advisors and post processors were registered.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockOrderingTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), BootAutoConfigurations.jdbcTemplate(),
				AdvisoryLockAutoConfiguration.class))
		.withBean(DataSource.class, () -> TestDatabase.get().dataSource())
		.withUserConfiguration(Services.class);

	@Test
	void transactionalOnTheSameMethod() {
		this.contextRunner.run((context) -> assertThat(context.getBean(Probe.class).sameMethod("a")).isTrue());
	}

	@Test
	void theLockJoinsTheTransactionOfATransactionalClass() {
		this.contextRunner
			.run((context) -> assertThat(context.getBean(TransactionalProbe.class).classLevel("a")).isTrue());
	}

	@Test
	void theLockJoinsTheTransactionOfATransactionalCaller() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(Caller.class).callInTransaction("a")).isTrue();
			// The same method without the caller's transaction has nothing to join.
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> context.getBean(Probe.class).noTransaction("a"));
		});
	}

	@Test
	void transactionAdvisorWithHighestPrecedence() {
		this.contextRunner.withUserConfiguration(HighestPrecedenceTransactions.class).run((context) -> {
			assertThat(context.getBean(Probe.class).sameMethod("a")).isTrue();
			assertThat(context.getBean(TransactionalProbe.class).classLevel("a")).isTrue();
		});
	}

	@Test
	void transactionAdvisorWithLowestPrecedence() {
		this.contextRunner.withUserConfiguration(LowestPrecedenceTransactions.class).run((context) -> {
			assertThat(context.getBean(Probe.class).sameMethod("a")).isTrue();
			assertThat(context.getBean(TransactionalProbe.class).classLevel("a")).isTrue();
		});
	}

	@Test
	void lockPostProcessorRunningBeforeTheTransactionProxyCreator() {
		this.contextRunner.withUserConfiguration(EarlyLockPostProcessor.class).run((context) -> {
			// The lock's proxy came first, and the transaction's proxy wraps it.
			Object target = ((Advised) context.getBean(Probe.class)).getTargetSource().getTarget();
			assertThat(AopUtils.isAopProxy(target)).isTrue();
			assertThat(context.getBean(Probe.class).sameMethod("a")).isTrue();
			assertThat(context.getBean(TransactionalProbe.class).classLevel("a")).isTrue();
		});
	}

	@Test
	void theLockIsTakenThroughInterfaceBasedProxiesToo() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withUserConfiguration(InterfaceProxies.class)
			.run((context) -> {
				LockedOperation operation = context.getBean(LockedOperation.class);
				assertThat(AopUtils.isJdkDynamicProxy(operation)).isTrue();
				assertThat(operation.run("a")).isTrue();
			});
	}

	@Test
	void classBasedProxiesByDefaultForBeansWithInterfaces() {
		this.contextRunner.withUserConfiguration(InterfaceProxies.class).run((context) -> {
			// Injection by class keeps working, as with Spring Boot's own AOP defaults.
			assertThat(AopUtils.isCglibProxy(context.getBean(LockedOperationImpl.class))).isTrue();
			assertThat(context.getBean(Caller.class).runOperationInTransaction("a")).isTrue();
		});
	}

	/**
	 * Return whether the current transaction's own backend holds the lock: true only if
	 * the interceptor ran inside the transaction.
	 */
	static boolean lockedInsideTransaction(JdbcTemplate jdbc, String namespace, String value) {
		long key = AdvisoryLockKeys.of(namespace, value);
		Integer held = jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
				+ "AND pid = pg_backend_pid() AND " + io.github.advisorylock.testsupport.PgLocks.KEY_EXPRESSION
				+ " = ?", Integer.class, key);
		return TransactionSynchronizationManager.isActualTransactionActive() && held == 1;
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Probe probe(JdbcTemplate jdbc) {
			return new Probe(jdbc);
		}

		@Bean
		TransactionalProbe transactionalProbe(JdbcTemplate jdbc) {
			return new TransactionalProbe(jdbc);
		}

		@Bean
		Caller caller(Probe probe, ObjectProvider<LockedOperation> operation) {
			return new Caller(probe, operation);
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
				ObjectProvider<AdvisoryLockOperations> operations) {
			AdvisoryLockBeanPostProcessor postProcessor = new AdvisoryLockBeanPostProcessor(operations::getObject);
			postProcessor.setOrder(Ordered.HIGHEST_PRECEDENCE);
			postProcessor.setProxyTargetClass(true);
			return postProcessor;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class InterfaceProxies {

		@Bean
		LockedOperationImpl lockedOperation(JdbcTemplate jdbc) {
			return new LockedOperationImpl(jdbc);
		}

	}

	static class Probe {

		private final JdbcTemplate jdbc;

		Probe(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		@AdvisoryLocked(namespace = "ordering", key = "#id")
		public boolean sameMethod(String id) {
			return lockedInsideTransaction(this.jdbc, "ordering", id);
		}

		@AdvisoryLocked(namespace = "ordering", key = "#id")
		public boolean noTransaction(String id) {
			return lockedInsideTransaction(this.jdbc, "ordering", id);
		}

	}

	@Transactional
	static class TransactionalProbe {

		private final JdbcTemplate jdbc;

		TransactionalProbe(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@AdvisoryLocked(namespace = "ordering", key = "#id")
		public boolean classLevel(String id) {
			return lockedInsideTransaction(this.jdbc, "ordering", id);
		}

	}

	static class Caller {

		private final Probe probe;

		private final ObjectProvider<LockedOperation> operation;

		Caller(Probe probe, ObjectProvider<LockedOperation> operation) {
			this.probe = probe;
			this.operation = operation;
		}

		@Transactional
		public boolean callInTransaction(String id) {
			return this.probe.noTransaction(id);
		}

		@Transactional
		public boolean runOperationInTransaction(String id) {
			return this.operation.getObject().run(id);
		}

	}

	interface LockedOperation {

		boolean run(String id);

	}

	static class LockedOperationImpl implements LockedOperation {

		private final JdbcTemplate jdbc;

		LockedOperationImpl(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Override
		@Transactional
		@AdvisoryLocked(namespace = "ordering", key = "#id")
		public boolean run(String id) {
			return lockedInsideTransaction(this.jdbc, "ordering", id);
		}

	}

}
