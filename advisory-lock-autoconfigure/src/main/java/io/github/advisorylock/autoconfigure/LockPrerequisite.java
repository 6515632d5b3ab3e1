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

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * What advisory locks need from the application, and what to add when one is missing: the
 * text of the startup failure that {@link LockPrerequisitesCheck} and
 * {@link InjectedOperationsCheck} raise and
 * {@link MissingLockPrerequisiteFailureAnalyzer} reports.
 *
 * @author advisory-lock authors
 */
enum LockPrerequisite {

	/** spring-jdbc, which joins a transaction's connection. */
	SPRING_JDBC("spring-jdbc is not on the class path",
			"the lock is taken on the JDBC connection of the current transaction", Action.JDBC, true),

	DATA_SOURCE("there is no DataSource bean", "the lock is taken on the JDBC connection of the current transaction",
			Action.JDBC, true),

	TRANSACTION_MANAGER("there is no PlatformTransactionManager bean",
			"the lock joins the current Spring transaction, and PostgreSQL releases it when that transaction commits "
					+ "or rolls back",
			Action.TRANSACTION_MANAGER, true),

	/**
	 * {@code AdvisoryLockAutoConfiguration} did not apply with nothing above missing:
	 * excluded, or ordered before what defines the {@code DataSource} or transaction
	 * manager.
	 */
	AUTO_CONFIGURATION(
			"AdvisoryLockAutoConfiguration did not apply, although spring-jdbc, a DataSource and a "
					+ "PlatformTransactionManager are there",
			"it defines the interception of @AdvisoryLocked methods", Action.AUTO_CONFIGURATION, false),

	POSTGRESQL_DRIVER("the PostgreSQL JDBC driver (" + LockPrerequisite.DRIVER_CLASS + ") is not on the class path",
			"advisory locks are PostgreSQL functions, called through it", Action.DRIVER, false),

	R2DBC("there is no R2DBC ConnectionFactory bean with spring-r2dbc, Reactor and the r2dbc-postgresql driver",
			"a method returning Mono or Flux takes its lock on the connection of the subscriber's reactive "
					+ "transaction",
			Action.R2DBC, false);

	/** The class of the PostgreSQL JDBC driver, {@code org.postgresql:postgresql}. */
	static final String DRIVER_CLASS = "org.postgresql.Driver";

	static final String SPRING_JDBC_CLASS = "org.springframework.jdbc.datasource.DataSourceUtils";

	// Named: spring-tx comes with spring-jdbc, which may be what is missing.
	static final String TRANSACTION_MANAGER_CLASS = "org.springframework.transaction.PlatformTransactionManager";

	private final String missing;

	private final String reason;

	private final Action action;

	private final boolean backsOff;

	LockPrerequisite(String missing, String reason, Action action, boolean backsOff) {
		this.missing = missing;
		this.reason = reason;
		this.action = action;
		this.backsOff = backsOff;
	}

	/**
	 * Return what the application lacks, from the class path and the bean definitions
	 * alone: no bean is created and no connection made. A bean counts by type, as for
	 * {@code @ConditionalOnBean}, without initializing a {@code FactoryBean}.
	 * {@link OnLockPrerequisitesCondition} reads this too.
	 * @param beanFactory the application's bean factory
	 * @return the missing prerequisites in declaration order, possibly none
	 */
	static Set<LockPrerequisite> missing(ConfigurableListableBeanFactory beanFactory) {
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		Set<LockPrerequisite> missing = EnumSet.noneOf(LockPrerequisite.class);
		if (!ClassUtils.isPresent(SPRING_JDBC_CLASS, classLoader)) {
			missing.add(SPRING_JDBC);
		}
		else if (!hasBean(beanFactory, DataSource.class)) {
			missing.add(DATA_SOURCE);
		}
		if (!ClassUtils.isPresent(TRANSACTION_MANAGER_CLASS, classLoader)
				|| !hasBean(beanFactory, ClassUtils.resolveClassName(TRANSACTION_MANAGER_CLASS, classLoader))) {
			missing.add(TRANSACTION_MANAGER);
		}
		if (!driverPresent(classLoader)) {
			missing.add(POSTGRESQL_DRIVER);
		}
		return missing;
	}

	static boolean driverPresent(@Nullable ClassLoader classLoader) {
		return ClassUtils.isPresent(DRIVER_CLASS, classLoader);
	}

	/**
	 * Return whether any of these prerequisites makes the auto-configuration back off (no
	 * {@code AdvisoryLockOperations}, no interception of {@code @AdvisoryLocked}).
	 * @param missing the missing prerequisites
	 * @return whether the auto-configuration backs off
	 */
	static boolean backsOff(Set<LockPrerequisite> missing) {
		return missing.stream().anyMatch(LockPrerequisite::backsOff);
	}

	/** Return whether the auto-configuration backs off without this prerequisite. */
	boolean backsOff() {
		return this.backsOff;
	}

	/**
	 * Return what is missing, for the conditions report.
	 * @param missing the missing prerequisites, not empty
	 */
	static String describeMissing(Set<LockPrerequisite> missing) {
		return missing.stream().map((each) -> each.missing).collect(Collectors.joining("; "));
	}

	/**
	 * Return the description of a failure: who needs the lock, and each missing
	 * prerequisite with the reason.
	 * @param user what needs the lock, a sentence's subject ("Method … is annotated
	 * with @AdvisoryLocked")
	 * @param missing the missing prerequisites, not empty
	 * @return the description
	 */
	static String describe(String user, Set<LockPrerequisite> missing) {
		return user + ", but an advisory lock cannot be taken:\n"
				+ missing.stream()
					.map((each) -> "\t- " + each.missing + ": " + each.reason + ".")
					.collect(Collectors.joining("\n"));
	}

	/**
	 * Return what to add, once for each missing prerequisite; the transaction manager is
	 * not named on its own where a starter that brings a {@code DataSource} brings it.
	 * @param missing the missing prerequisites, not empty
	 * @return the action
	 */
	static String action(Set<LockPrerequisite> missing) {
		Set<Action> actions = EnumSet.noneOf(Action.class);
		missing.forEach((each) -> actions.add(each.action));
		if (actions.contains(Action.JDBC)) {
			actions.remove(Action.TRANSACTION_MANAGER);
		}
		return actions.stream().map((each) -> each.text).collect(Collectors.joining("\n\n"));
	}

	private static boolean hasBean(ConfigurableListableBeanFactory beanFactory, Class<?> type) {
		// Ancestors included, as @ConditionalOnBean searches them: a child context
		// uses its parent's DataSource.
		return BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, type, true, false).length > 0;
	}

	/** What to add for a missing prerequisite. */
	private enum Action {

		JDBC("Add spring-boot-starter-jdbc, spring-boot-starter-data-jpa or spring-boot-starter-data-jdbc to your "
				+ "dependencies, and set spring.datasource.url: Spring Boot then defines a DataSource and its "
				+ "transaction manager. Or define a DataSource bean and a PlatformTransactionManager bean of your own."),

		TRANSACTION_MANAGER(
				"Define a PlatformTransactionManager bean for your DataSource: a JdbcTransactionManager, or "
						+ "a JpaTransactionManager with JPA. Spring Boot defines one by itself with spring-boot-starter-jdbc, "
						+ "spring-boot-starter-data-jpa or spring-boot-starter-data-jdbc, when there is one DataSource or a "
						+ "@Primary one."),

		AUTO_CONFIGURATION("Check that AdvisoryLockAutoConfiguration is not excluded (spring.autoconfigure.exclude, "
				+ "@SpringBootApplication(exclude = ...)), and that an auto-configuration defining your DataSource or "
				+ "transaction manager is ordered before it (@AutoConfiguration(before = AdvisoryLockAutoConfiguration"
				+ ".class)); a configuration class of your own always is. Run with --debug for the conditions report."),

		DRIVER("Add the PostgreSQL JDBC driver, org.postgresql:postgresql, to your dependencies with runtime scope "
				+ "(Spring Boot manages its version).\n"
				+ "Maven:  <dependency><groupId>org.postgresql</groupId><artifactId>postgresql</artifactId>"
				+ "<scope>runtime</scope></dependency>\n" + "Gradle: runtimeOnly(\"org.postgresql:postgresql\")"),

		R2DBC("Add spring-boot-starter-data-r2dbc (or spring-r2dbc) and org.postgresql:r2dbc-postgresql to your "
				+ "dependencies, and set spring.r2dbc.url: Spring Boot then defines a ConnectionFactory and its "
				+ "R2dbcTransactionManager (docs/reactive.md).");

		private final String text;

		Action(String text) {
			this.text = text;
		}

	}

}
