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

import io.github.advisorylock.AdvisoryLocked;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the startup check that an application using advisory locks has
 * what they need: spring-jdbc, a {@code DataSource}, a {@code PlatformTransactionManager}
 * and the PostgreSQL JDBC driver.
 *
 * <p>
 * {@link AdvisoryLockAutoConfiguration} backs off without the first three, which would
 * leave {@link AdvisoryLocked @AdvisoryLocked} methods running unlocked; an application
 * that has such a method or injects {@code AdvisoryLockOperations} fails to start
 * instead, with a report naming what to add (docs/getting-started-errors.md). This
 * configuration has no condition, as it must apply exactly when the other backs off, and
 * refers to no class of spring-jdbc, which may be what is missing.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration
@ImportRuntimeHints(AdvisoryLockRuntimeHints.class)
public final class AdvisoryLockPrerequisitesAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static InjectedOperationsCheck advisoryLockInjectedOperationsCheck(ConfigurableListableBeanFactory beanFactory) {
		return new InjectedOperationsCheck(beanFactory);
	}

	// The interception's own condition, rather than a second reading of the property.
	@Configuration(proxyBeanMethods = false)
	@Conditional(AdvisoryLockAutoConfiguration.AnnotationEnabledCondition.class)
	static class AnnotatedMethodsCheckConfiguration {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LockPrerequisitesCheck advisoryLockPrerequisitesCheck(ConfigurableListableBeanFactory beanFactory) {
			return new LockPrerequisitesCheck(beanFactory);
		}

	}

}
