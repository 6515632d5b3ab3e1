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

import io.github.advisorylock.AdvisoryLockOperations;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.UnsatisfiedDependencyException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Reports a startup failure of an application that lacks what advisory locks need, naming
 * what to add:
 * <ul>
 * <li>a {@link MissingLockPrerequisiteException} of {@link LockPrerequisitesCheck} or
 * {@link InjectedOperationsCheck};</li>
 * <li>an {@link AdvisoryLockOperations} not injected because the auto-configuration
 * backed off, where Spring Boot's own report would suggest defining one;</li>
 * <li>a failure naming the PostgreSQL driver class or a {@code jdbc:postgresql:} URL
 * while the driver is missing (Spring Boot's {@code DataSource} failing to load it, say),
 * before any bean could use a lock and with no report of Spring Boot's own.</li>
 * </ul>
 * Registered in {@code META-INF/spring.factories} (the same key on Spring Boot 3 and 4)
 * ahead of Spring Boot's analyzers, which would report the unsatisfied dependency first.
 *
 * @author advisory-lock authors
 */
final class MissingLockPrerequisiteFailureAnalyzer implements FailureAnalyzer, Ordered {

	private final @Nullable ConfigurableListableBeanFactory beanFactory;

	/**
	 * Create an analyzer.
	 * @param beanFactory the failed application's bean factory, or {@code null} for a
	 * failure before there was one
	 */
	MissingLockPrerequisiteFailureAnalyzer(@Nullable BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory listable) ? listable : null;
	}

	@Override
	public @Nullable FailureAnalysis analyze(Throwable failure) {
		MissingLockPrerequisiteException missing = find(failure, MissingLockPrerequisiteException.class);
		if (missing != null) {
			return analysis(missing.getUser(), missing.getMissing(), missing);
		}
		NoSuchBeanDefinitionException noBean = find(failure, NoSuchBeanDefinitionException.class);
		if (noBean != null && noBean.getBeanType() == AdvisoryLockOperations.class && this.beanFactory != null) {
			return operationsNotDefined(this.beanFactory, failure, noBean);
		}
		if (!LockPrerequisite.driverPresent(
				(this.beanFactory != null) ? this.beanFactory.getBeanClassLoader() : getClass().getClassLoader())) {
			return driverNeeded(failure);
		}
		return null;
	}

	private static @Nullable FailureAnalysis operationsNotDefined(ConfigurableListableBeanFactory beanFactory,
			Throwable failure, NoSuchBeanDefinitionException noBean) {
		Set<LockPrerequisite> missing = LockPrerequisite.missing(beanFactory);
		// Otherwise it was excluded or replaced: Spring Boot's report says more.
		if (!LockPrerequisite.backsOff(missing)) {
			return null;
		}
		UnsatisfiedDependencyException unsatisfied = find(failure, UnsatisfiedDependencyException.class);
		String user = (unsatisfied != null && unsatisfied.getBeanName() != null)
				? "Bean '" + unsatisfied.getBeanName() + "' needs AdvisoryLockOperations"
				: "A bean needs AdvisoryLockOperations";
		return analysis(user, missing, noBean);
	}

	private @Nullable FailureAnalysis driverNeeded(Throwable failure) {
		// The innermost exception that names the driver or a PostgreSQL URL says most
		// precisely what failed.
		Throwable naming = null;
		for (Throwable each = failure; each != null; each = each.getCause()) {
			String message = each.getMessage();
			if (message != null
					&& (message.contains(LockPrerequisite.DRIVER_CLASS) || message.contains("jdbc:postgresql:"))) {
				naming = each;
			}
		}
		if (naming == null) {
			return null;
		}
		String description = "The application connects to PostgreSQL, but " + LockPrerequisite.DRIVER_CLASS
				+ " is not on the class path:\n\t" + naming.getClass().getName() + ": "
				+ firstLine(String.valueOf(naming.getMessage()));
		return new FailureAnalysis(description, LockPrerequisite.action(EnumSet.of(LockPrerequisite.POSTGRESQL_DRIVER)),
				failure);
	}

	private static FailureAnalysis analysis(String user, Set<LockPrerequisite> missing, Throwable cause) {
		return new FailureAnalysis(LockPrerequisite.describe(user, missing), LockPrerequisite.action(missing), cause);
	}

	private static String firstLine(String message) {
		int end = message.indexOf('\n');
		return (end < 0) ? message : message.substring(0, end);
	}

	private static <T extends Throwable> @Nullable T find(Throwable failure, Class<T> type) {
		for (Throwable each = failure; each != null; each = each.getCause()) {
			if (type.isInstance(each)) {
				return type.cast(each);
			}
		}
		return null;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
