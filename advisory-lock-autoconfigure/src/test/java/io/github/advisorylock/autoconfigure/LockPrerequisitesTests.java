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

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.UnconnectedDataSource;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport.ConditionAndOutcomes;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link AdvisoryLockPrerequisitesAutoConfiguration} and
 * {@link MissingLockPrerequisiteFailureAnalyzer}: an application that uses the locks
 * without a {@code DataSource}, a transaction manager or the PostgreSQL driver fails to
 * start with a report naming what to add, and one that does not use them starts. Each
 * report is asked of every failure analyzer registered in {@code spring.factories}, in
 * their order, as Spring Boot asks them, so that the registration and the precedence over
 * Spring Boot's own analyzers are tested too.
 */
class LockPrerequisitesTests {

	private static final String JDBC_STARTERS = "spring-boot-starter-jdbc, spring-boot-starter-data-jpa or "
			+ "spring-boot-starter-data-jdbc";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AdvisoryLockAutoConfiguration.class,
				AdvisoryLockPrerequisitesAutoConfiguration.class))
		.withInitializer((context) -> this.started = context);

	private final ApplicationContextRunner withDataSourceOnly = this.contextRunner.withBean(DataSource.class,
			UnconnectedDataSource::new);

	private final ApplicationContextRunner withTransactionManager = this.withDataSourceOnly
		.withBean(PlatformTransactionManager.class, () -> new JdbcTransactionManager(new UnconnectedDataSource()));

	private final FilteredClassLoader withoutDriver = new FilteredClassLoader("org.postgresql");

	/**
	 * The application context being started, for its bean factory, which Spring Boot
	 * gives the analyzers.
	 */
	private @Nullable ConfigurableApplicationContext started;

	/**
	 * Return the outcome of the auto-configuration's own condition in the report that
	 * {@code --debug} prints.
	 */
	private static String autoConfigurationOutcome(AssertableApplicationContext context) {
		ConditionAndOutcomes outcomes = ConditionEvaluationReport.get(context.getBeanFactory())
			.getConditionAndOutcomesBySource()
			.get(AdvisoryLockAutoConfiguration.class.getName());
		assertThat(outcomes).as("conditions of AdvisoryLockAutoConfiguration").isNotNull();
		List<String> described = new ArrayList<>();
		outcomes.forEach((each) -> described
			.add((each.getOutcome().isMatch() ? "match: " : "no match: ") + each.getOutcome().getMessage()));
		assertThat(described).hasSize(1);
		return described.get(0);
	}

	@Test
	void anAdvisoryLockedMethodWithoutATransactionManagerFailsTheStartup() {
		this.withDataSourceOnly.withUserConfiguration(LockedService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(BeanCreationException.class)
				.hasRootCauseInstanceOf(MissingLockPrerequisiteException.class);
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription())
				.contains(
						"Method " + Setups.class.getName()
								+ ".create of bean 'setups' is annotated with @AdvisoryLocked",
						"there is no PlatformTransactionManager bean: the lock joins the current Spring transaction")
				.doesNotContain("DataSource bean", "driver");
			assertThat(analysis.getAction()).startsWith("Define a PlatformTransactionManager bean for your DataSource")
				.contains(JDBC_STARTERS, "one DataSource or a @Primary one");
		});
	}

	@Test
	void twoDataSourcesWithoutAPrimaryGetNoTransactionManagerFromSpringBootSoTheLockFailsTheStartup() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager()))
			.withUserConfiguration(TwoDataSources.class, LockedService.class)
			.run((context) -> assertThat(analyze(context).getDescription())
				.contains("there is no PlatformTransactionManager bean"));
	}

	@Test
	void anAdvisoryLockedMethodWithoutADataSourceNamesTheJdbcStarters() {
		this.contextRunner.withUserConfiguration(LockedService.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context);
			assertThat(analysis.getDescription()).contains("is annotated with @AdvisoryLocked",
					"there is no DataSource bean: the lock is taken on the JDBC connection of the current transaction",
					"there is no PlatformTransactionManager bean");
			// The starters bring the transaction manager too: one action, not two.
			assertThat(analysis.getAction()).startsWith("Add " + JDBC_STARTERS + " to your dependencies")
				.contains("spring.datasource.url", "Or define a DataSource bean and a PlatformTransactionManager bean")
				.doesNotContain("Define a PlatformTransactionManager bean for your DataSource");
		});
	}

	@Test
	void anAdvisoryLockedMethodWithoutSpringJdbcNamesTheJdbcStarters() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(DataSourceUtils.class))
			.withUserConfiguration(LockedService.class)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertThat(analysis.getDescription()).contains("spring-jdbc is not on the class path");
				assertThat(analysis.getAction()).startsWith("Add " + JDBC_STARTERS);
			});
	}

	@Test
	void injectedOperationsWithoutATransactionManagerAreReportedAheadOfSpringBootsOwnReport() {
		this.withDataSourceOnly.withUserConfiguration(OperationsUser.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context);
			// Spring Boot's own report would say "Consider defining a bean of type
			// AdvisoryLockOperations".
			assertThat(analysis.getDescription()).startsWith("Bean 'user' needs AdvisoryLockOperations")
				.contains("there is no PlatformTransactionManager bean");
			assertThat(analysis.getAction()).startsWith("Define a PlatformTransactionManager bean");
		});
	}

	@Test
	void operationsMissingForAnotherReasonAreLeftToSpringBootsOwnReport() {
		// Everything the locks need is there; the application excluded the
		// auto-configuration.
		new ApplicationContextRunner().withInitializer((context) -> this.started = context)
			.withBean(DataSource.class, UnconnectedDataSource::new)
			.withBean(PlatformTransactionManager.class, () -> new JdbcTransactionManager(new UnconnectedDataSource()))
			.withUserConfiguration(OperationsUser.class)
			.run((context) -> assertThat(analyze(context).getDescription())
				.doesNotContain("an advisory lock cannot be taken"));
	}

	@Test
	void anApplicationThatUsesNoLockStartsWithoutTransactionManagerOrDataSource() {
		this.withDataSourceOnly.withUserConfiguration(PlainService.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(AdvisoryLockOperations.class));
		this.contextRunner.withUserConfiguration(PlainService.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(AdvisoryLockOperations.class));
	}

	@Test
	void anOptionalProviderOfTheOperationsIsNoUse() {
		this.withDataSourceOnly.withUserConfiguration(OptionalOperationsUser.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void withTheAnnotationTurnedOffAnAdvisoryLockedMethodIsNoUse() {
		this.withDataSourceOnly.withUserConfiguration(LockedService.class)
			.withPropertyValues("advisory-lock.annotation.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed());
		this.withDataSourceOnly.withUserConfiguration(LockedService.class)
			.withPropertyValues("advisory-lock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theConditionsReportNamesWhatTheAutoConfigurationLacks() {
		this.withDataSourceOnly.run((context) -> assertThat(autoConfigurationOutcome(context))
			.isEqualTo("no match: advisory locks cannot be taken: there is no PlatformTransactionManager bean"));
		this.contextRunner.withClassLoader(new FilteredClassLoader(DataSourceUtils.class))
			.run((context) -> assertThat(autoConfigurationOutcome(context))
				.isEqualTo("no match: advisory locks cannot be taken: spring-jdbc is not on the class path; "
						+ "there is no PlatformTransactionManager bean"));
		this.withTransactionManager.run((context) -> assertThat(autoConfigurationOutcome(context)).isEqualTo(
				"match: spring-jdbc, a DataSource bean and a PlatformTransactionManager bean are there for advisory "
						+ "locks"));
	}

	@Test
	void anApplicationWithEverythingTheLocksNeedStarts() {
		this.withTransactionManager.withUserConfiguration(LockedService.class, OperationsUser.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(AdvisoryLockOperations.class));
	}

	@Test
	void anAdvisoryLockedMethodWhereTheAutoConfigurationDidNotApplyFailsTheStartup() {
		// Excluded, or ordered before what defines the DataSource: everything is there
		// but the interceptor.
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockPrerequisitesAutoConfiguration.class))
			.withInitializer((context) -> this.started = context)
			.withBean(DataSource.class, UnconnectedDataSource::new)
			.withBean(PlatformTransactionManager.class, () -> new JdbcTransactionManager(new UnconnectedDataSource()))
			.withUserConfiguration(LockedService.class)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertThat(analysis.getDescription())
					.contains("is annotated with @AdvisoryLocked", "AdvisoryLockAutoConfiguration did not apply")
					.doesNotContain("there is no");
				assertThat(analysis.getAction()).contains("is not excluded", "--debug");
			});
	}

	@Test
	void aDataSourceAndATransactionManagerOfTheParentContextAreEnough() {
		// @ConditionalOnBean finds them in the parent, so the interceptor is there and
		// the locks work.
		new ApplicationContextRunner().withBean(DataSource.class, UnconnectedDataSource::new)
			.withBean(PlatformTransactionManager.class, () -> new JdbcTransactionManager(new UnconnectedDataSource()))
			.run((parent) -> this.contextRunner.withParent(parent)
				.withUserConfiguration(LockedService.class)
				.run((child) -> assertThat(child).hasNotFailed().hasSingleBean(AdvisoryLockOperations.class)));
	}

	@Test
	void theAnnotationTurnedOffAsTheConditionReadsItIsNotChecked() {
		// @ConditionalOnProperty turns the interception off for any value but "true",
		// even "on"; the check agrees, rather than fail an application whose annotation
		// is off.
		this.withDataSourceOnly.withUserConfiguration(LockedService.class)
			.withPropertyValues("advisory-lock.annotation.enabled=on")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aFailureBeforeThereIsABeanFactoryIsLeftToSpringBoot() {
		assertThat(new MissingLockPrerequisiteFailureAnalyzer(null).analyze(new IllegalStateException("no context")))
			.isNull();
	}

	@Test
	void anAdvisoryLockedMethodWithoutTheDriverFailsTheStartupNamingTheDependency() {
		// A DataSource not built by Spring Boot, such as a pool created lazily from a
		// URL: nothing connects at startup.
		this.withTransactionManager.withClassLoader(this.withoutDriver)
			.withUserConfiguration(LockedService.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context);
				assertThat(analysis.getDescription())
					.contains("is annotated with @AdvisoryLocked",
							"the PostgreSQL JDBC driver (org.postgresql.Driver) is not on the class path")
					.doesNotContain("PlatformTransactionManager");
				assertDriverAction(analysis);
			});
	}

	@Test
	void injectedOperationsWithoutTheDriverFailTheStartup() {
		this.withTransactionManager.withClassLoader(this.withoutDriver)
			.withUserConfiguration(OperationsUser.class)
			.run((context) -> {
				assertThat(context.getStartupFailure()).isInstanceOf(MissingLockPrerequisiteException.class);
				FailureAnalysis analysis = analyze(context);
				assertThat(analysis.getDescription()).startsWith("Bean 'user' has AdvisoryLockOperations injected")
					.contains("org.postgresql.Driver");
				assertDriverAction(analysis);
			});
	}

	@Test
	void withoutTheDriverAnApplicationThatUsesNoLockStarts() {
		this.withTransactionManager.withClassLoader(this.withoutDriver)
			.withUserConfiguration(PlainService.class, OptionalOperationsUser.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(AdvisoryLockOperations.class));
	}

	@Test
	void springBootsDataSourceFailingToLoadTheDriverGetsTheDependencyNamed() {
		// Spring Boot fails first, before any bean could use a lock; its own report would
		// not name the dependency.
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSource(),
					BootAutoConfigurations.dataSourceTransactionManager()))
			.withClassLoader(this.withoutDriver)
			.withPropertyValues("spring.datasource.url=jdbc:postgresql://localhost/app",
					"spring.datasource.driver-class-name=org.postgresql.Driver")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure())
					.hasRootCauseMessage("Cannot load driver class: org.postgresql.Driver");
				FailureAnalysis analysis = analyze(context);
				assertThat(analysis.getDescription())
					.startsWith("The application connects to PostgreSQL, but "
							+ "org.postgresql.Driver is not on the class path:")
					.contains("Cannot load driver class: org.postgresql.Driver");
				assertDriverAction(analysis);
			});
	}

	@Test
	void hikarisFailureToLoadTheDriverGetsTheDependencyNamed() {
		// Hikari loads the driver through its own class loader too, which a
		// FilteredClassLoader cannot hide: its failure, as it reads when
		// spring.datasource.url is a PostgreSQL URL and the driver is missing.
		this.withDataSourceOnly.withClassLoader(this.withoutDriver).run((context) -> {
			RuntimeException hikari = new RuntimeException(
					"Failed to load driver class org.postgresql.Driver in either "
							+ "of HikariConfig class loader or Thread context classloader");
			FailureAnalysis analysis = analyze(
					new BeanCreationException("dataSource", "Failed to instantiate", hikari));
			assertThat(analysis.getDescription()).contains("RuntimeException: Failed to load driver class");
			assertDriverAction(analysis);
		});
	}

	@Test
	void aFailureNamingThePostgresqlDriverIsLeftAloneWhenTheDriverIsThere() {
		this.withDataSourceOnly.run((context) -> assertThat(
				firstAnalysis(new IllegalStateException("Cannot load driver class: org.postgresql.Driver")))
			.isNull());
	}

	private static void assertDriverAction(FailureAnalysis analysis) {
		assertThat(analysis.getAction()).contains("org.postgresql:postgresql", "runtime scope",
				"<groupId>org.postgresql</groupId><artifactId>postgresql</artifactId><scope>runtime</scope>",
				"Gradle: runtimeOnly(\"org.postgresql:postgresql\")");
	}

	private FailureAnalysis analyze(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		return analyze(context.getStartupFailure());
	}

	private FailureAnalysis analyze(Throwable failure) {
		FailureAnalysis analysis = firstAnalysis(failure);
		assertThat(analysis).as("an analysis of %s", failure).isNotNull();
		return Objects.requireNonNull(analysis);
	}

	/**
	 * Return the analysis Spring Boot would report: the first of the analyzers registered
	 * in {@code spring.factories}, in their order, created with the failed context's bean
	 * factory and environment, as Spring Boot's {@code FailureAnalyzers} does (skipping,
	 * as it does, those that fail for want of a library's classes).
	 */
	private @Nullable FailureAnalysis firstAnalysis(Throwable failure) {
		ConfigurableApplicationContext context = Objects.requireNonNull(this.started);
		ArgumentResolver arguments = ArgumentResolver.of(BeanFactory.class, context.getBeanFactory())
			.and(Environment.class, context.getEnvironment());
		List<FailureAnalyzer> analyzers = new ArrayList<>(
				SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
					.load(FailureAnalyzer.class, arguments, FailureHandler.logging(LogFactory.getLog(getClass()))));
		assertThat(analyzers).hasAtLeastOneElementOfType(MissingLockPrerequisiteFailureAnalyzer.class);
		// Here this module's classes come first on the class path; in an application
		// Spring Boot's jars may. Ours last, then sorted by order as Spring does (a
		// stable sort): only its order can bring it ahead.
		analyzers.sort(Comparator.comparing(MissingLockPrerequisiteFailureAnalyzer.class::isInstance));
		AnnotationAwareOrderComparator.sort(analyzers);
		for (FailureAnalyzer analyzer : analyzers) {
			try {
				FailureAnalysis analysis = analyzer.analyze(failure);
				if (analysis != null) {
					return analysis;
				}
			}
			catch (Throwable ex) {
				// As FailureAnalyzers does: an analyzer of a library that is not there
				// (jOOQ's, say) fails to look.
			}
		}
		return null;
	}

	@Configuration(proxyBeanMethods = false)
	static class LockedService {

		@Bean
		Setups setups() {
			return new Setups();
		}

	}

	static class Setups {

		@AdvisoryLocked(namespace = "setup_request", key = "#p0")
		public void create(long userId) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OperationsUser {

		@Bean
		Uses user(AdvisoryLockOperations operations) {
			return new Uses(operations);
		}

		record Uses(AdvisoryLockOperations operations) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OptionalOperationsUser {

		@Bean
		Object optionalUser(ObjectProvider<AdvisoryLockOperations> operations) {
			return operations;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlainService {

		@Bean
		Object plain() {
			return new Object();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSources {

		@Bean
		DataSource first() {
			return new UnconnectedDataSource();
		}

		@Bean
		DataSource second() {
			return new UnconnectedDataSource();
		}

	}

}
