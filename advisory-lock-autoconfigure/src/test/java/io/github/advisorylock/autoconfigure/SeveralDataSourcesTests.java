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

package io.github.advisorylock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.TwoDatabases;
import io.github.advisorylock.interceptor.AdvisoryLockBeanPostProcessor;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link AdvisoryLockAutoConfiguration} in an application with two
 * {@link DataSource}s on two databases, neither primary, each with its own transaction
 * manager: the starter applies, and a lock is taken on the database of the transaction it
 * joins.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class SeveralDataSourcesTests {

	private static final String NAMESPACE = "several-autoconfigured";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
		.withUserConfiguration(TwoDatabases.DataSources.class, TwoDatabases.TransactionManagers.class, Locked.class);

	private final String value = UUID.randomUUID().toString();

	private long key() {
		return AdvisoryLockKeys.of(NAMESPACE, this.value);
	}

	@Test
	void twoDataSourcesWithoutAPrimaryGetTheOperationsTheDiagnosisAndTheAnnotation() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(AdvisoryLockOperations.class)
			.hasSingleBean(LockHolderDiagnosis.class)
			.hasSingleBean(AdvisoryLockBeanPostProcessor.class));
	}

	@Test
	void anAnnotatedMethodInATransactionOfTheSecondManagerLocksOnTheSecondDatabase() {
		this.contextRunner.run((context) -> {
			Seen seen = context.getBean(Locked.class).inSecond(this.value);
			assertThat(seen.second()).containsExactly(key());
			assertThat(seen.first()).isEmpty();
		});
	}

	@Test
	void transactionsOfBothManagersFailNamingTheDataSourcesUnlessTheAnnotationNamesOne() {
		this.contextRunner.run((context) -> {
			Locked locked = context.getBean(Locked.class);
			TransactionTemplate first = new TransactionTemplate(
					context.getBean("firstTransactionManager", PlatformTransactionManager.class));
			first.executeWithoutResult((status) -> {
				assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> locked.inSecond(this.value))
					.withMessageContaining(Locked.class.getName() + ".inSecond(String)")
					.withMessageContaining(
							"several DataSources bound to the transactions of this thread, [first, second]")
					.withMessageContaining("@AdvisoryLocked(dataSource = \"second\")");
				Seen seen = locked.inSecondNamed(this.value);
				assertThat(seen.second()).containsExactly(key());
				assertThat(seen.first()).isEmpty();
			});
		});
	}

	@Test
	void theSeveralBoundErrorSuggestsTheDataSourceOfTheInnermostTransactionalMethod() {
		this.contextRunner.run((context) -> {
			Locked locked = context.getBean(Locked.class);
			TransactionTemplate first = new TransactionTemplate(
					context.getBean("firstTransactionManager", PlatformTransactionManager.class));
			first.executeWithoutResult((status) -> assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> locked.inSecondRequiresNew(this.value))
				.withMessageContaining(
						"@AdvisoryLocked(dataSource = \"second\") or LockRequest.withDataSource(\"second\")"));
			TransactionTemplate second = new TransactionTemplate(
					context.getBean("secondTransactionManager", PlatformTransactionManager.class));
			second.executeWithoutResult((status) -> assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> locked.inFirstRequiresNew(this.value))
				.withMessageContaining(
						"@AdvisoryLocked(dataSource = \"first\") or LockRequest.withDataSource(\"first\")"));
		});
	}

	@Test
	void theSeveralBoundErrorSuggestsNoneWhenATransactionBegunInsideTheTransactionalMethodMayBeMeant() {
		this.contextRunner.run((context) -> {
			TransactionTemplate first = new TransactionTemplate(
					context.getBean("firstTransactionManager", PlatformTransactionManager.class));
			assertThatExceptionOfType(LockTransactionException.class)
				.isThrownBy(() -> context.getBean(Locked.class)
					.inSecondThenFirst(() -> first.executeWithoutResult(
							(status) -> context.getBean(AdvisoryLockOperations.class).lock(NAMESPACE, this.value))))
				.withMessageContaining("one of [first, second]")
				.withMessageNotContaining("dataSource = \"second\"");
		});
	}

	@Test
	void aNameThatIsNoDataSourceBeanFailsAtStartupNamingTheMethodAndTheKnownOnes() {
		this.contextRunner.withUserConfiguration(UnknownName.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(UnknownName.class.getName() + ".run()")
				.hasMessageContaining("dataSource 'third' is no DataSource bean; name one of [first, second]"));
	}

	@Test
	void aBlankNameFailsAtStartupNamingTheMethod() {
		this.contextRunner.withUserConfiguration(BlankName.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(BlankName.class.getName() + ".run()")
				.hasMessageContaining("dataSource must name a DataSource bean"));
	}

	@Test
	void anInvocationScopedMethodLocksOnTheDataSourceItNamesAndWithoutAPrimaryMustNameOne() {
		this.contextRunner.run((context) -> {
			Locked locked = context.getBean(Locked.class);
			Seen seen = locked.jobOnSecond(this.value);
			assertThat(seen.second()).containsExactly(key());
			assertThat(seen.first()).isEmpty();
			assertThatIllegalStateException()
				.isThrownBy(() -> context.getBean(AdvisoryLockOperations.class)
					.execute(LockRequest.of(NAMESPACE, this.value).withScope(LockScope.INVOCATION), (handle) -> null))
				.withMessageContaining("there are several ([first, second]) with no primary one");
		});
	}

	@Test
	void thePrimaryDataSourceIsTheDefaultOfInvocationScopedLocks() {
		this.contextRunner.withUserConfiguration(FirstIsPrimary.class).run((context) -> {
			AdvisoryLockOperations locks = context.getBean(AdvisoryLockOperations.class);
			List<Long> first = locks
				.execute(LockRequest.of(NAMESPACE, this.value).withScope(LockScope.INVOCATION),
						(handle) -> TwoDatabases.keysIn(context.getBean("first", DataSource.class)))
				.value();
			assertThat(first).containsExactly(key());
		});
	}

	@Test
	void aTimeoutIsDiagnosedOnTheDatabaseOfTheTransaction() {
		// The diagnosis connects outside the pool within 1s by default, which a loaded
		// machine can exceed: then it names no holder.
		this.contextRunner.withPropertyValues("advisory-lock.diagnosis.timeout=30s").run((context) -> {
			DataSource second = context.getBean("second", DataSource.class);
			try (LockHolder holder = LockHolder.exclusive(second, key())) {
				TransactionTemplate transaction = new TransactionTemplate(
						context.getBean("secondTransactionManager", PlatformTransactionManager.class));
				assertThatExceptionOfType(LockBusyException.class)
					.isThrownBy(() -> transaction
						.executeWithoutResult((status) -> context.getBean(AdvisoryLockOperations.class)
							.lock(LockRequest.of(NAMESPACE, this.value).withTimeout(Duration.ofMillis(100)))))
					.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
						.containsExactly(holder.pid()));
			}
		});
	}

	@Test
	void anInvocationLockDataSourceIsNoneOfTheDataSourcesLockedOn() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
					BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
			.withBean("application", DataSource.class, () -> TestDatabase.get().dataSource())
			.withUserConfiguration(InvocationLockConnections.class)
			.run((context) -> assertThatIllegalArgumentException()
				.isThrownBy(() -> context.getBean(AdvisoryLockOperations.class)
					.lock(LockRequest.of(NAMESPACE, this.value).withDataSource("lockConnections")))
				.withMessageContaining("the known ones are [application]"));
	}

	/**
	 * The locks each database holds, seen from inside the locked method.
	 */
	record Seen(List<Long> first, List<Long> second) {

		static Seen now(DataSource first, DataSource second) {
			return new Seen(TwoDatabases.keysIn(first), TwoDatabases.keysIn(second));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FirstIsPrimary {

		@Bean
		static BeanFactoryPostProcessor firstIsPrimary() {
			return (beanFactory) -> beanFactory.getBeanDefinition("first").setPrimary(true);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class InvocationLockConnections {

		@Bean(defaultCandidate = false)
		@InvocationLockDataSource
		DataSource lockConnections() {
			return new DelegatingDataSource(TestDatabase.get().dataSource());
		}

	}

	static class Locked {

		private final DataSource first;

		private final DataSource second;

		Locked(@Qualifier("first") DataSource first, @Qualifier("second") DataSource second) {
			this.first = first;
			this.second = second;
		}

		@Transactional("secondTransactionManager")
		@AdvisoryLocked(namespace = NAMESPACE, key = "#value")
		public Seen inSecond(String value) {
			return Seen.now(this.first, this.second);
		}

		@Transactional(transactionManager = "secondTransactionManager", propagation = Propagation.REQUIRES_NEW)
		@AdvisoryLocked(namespace = NAMESPACE, key = "#value")
		public Seen inSecondRequiresNew(String value) {
			return Seen.now(this.first, this.second);
		}

		@Transactional(transactionManager = "firstTransactionManager", propagation = Propagation.REQUIRES_NEW)
		@AdvisoryLocked(namespace = NAMESPACE, key = "#value")
		public Seen inFirstRequiresNew(String value) {
			return Seen.now(this.first, this.second);
		}

		@Transactional("secondTransactionManager")
		public void inSecondThenFirst(Runnable work) {
			work.run();
		}

		@Transactional("secondTransactionManager")
		@AdvisoryLocked(namespace = NAMESPACE, key = "#value", dataSource = "second")
		public Seen inSecondNamed(String value) {
			return Seen.now(this.first, this.second);
		}

		@AdvisoryLocked(namespace = NAMESPACE, key = "#value", scope = LockScope.INVOCATION, dataSource = "second")
		public Seen jobOnSecond(String value) {
			return Seen.now(this.first, this.second);
		}

	}

	static class UnknownName {

		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION, dataSource = "third")
		public void run() {
		}

	}

	static class BlankName {

		@AdvisoryLocked(namespace = NAMESPACE, key = "'job'", scope = LockScope.INVOCATION, dataSource = " ")
		public void run() {
		}

	}

}
