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

import java.util.Map;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.interceptor.AdvisoryLockBeanPostProcessor;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.r2dbc.spi.ConnectionFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of advisory locks on Spring's reactive stack: a
 * {@link ReactiveAdvisoryLockOperations} bean, an {@link R2dbcAdvisoryLockTemplate} on
 * the application's R2DBC {@link ConnectionFactory} beans, from the same
 * {@code advisory-lock.*} properties as the JDBC path. With both stacks, an
 * {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked} method returning
 * {@code Mono} or {@code Flux} locks through it (docs/reactive.md).
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(after = AdvisoryLockAutoConfiguration.class, afterName = {
		// Spring Boot 3
		"org.springframework.boot.autoconfigure.r2dbc.R2dbcAutoConfiguration",
		"org.springframework.boot.autoconfigure.r2dbc.R2dbcTransactionManagerAutoConfiguration",
		// Spring Boot 4
		"org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration",
		"org.springframework.boot.r2dbc.autoconfigure.R2dbcTransactionManagerAutoConfiguration" })
@ConditionalOnClass(
		name = { "reactor.core.publisher.Mono", "org.springframework.r2dbc.connection.R2dbcTransactionManager",
				"io.r2dbc.postgresql.PostgresqlConnectionFactory" })
@ConditionalOnBean(type = "io.r2dbc.spi.ConnectionFactory")
@EnableConfigurationProperties(AdvisoryLockProperties.class)
public final class AdvisoryLockR2dbcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ReactiveAdvisoryLockOperations.class)
	R2dbcAdvisoryLockTemplate reactiveAdvisoryLockOperations(Map<String, ConnectionFactory> connectionFactories,
			ObjectProvider<ConnectionFactory> connectionFactory, ObjectProvider<LockKeyStrategy> keyStrategy,
			AdvisoryLockProperties properties, ObjectProvider<LockAcquisitionListener> listeners) {
		R2dbcAdvisoryLockTemplate template = new R2dbcAdvisoryLockTemplate(connectionFactories,
				DataSourceBeans.defaultName(connectionFactories, connectionFactory));
		template.setKeyStrategy(keyStrategy.getIfAvailable(LockKeyStrategy::standard));
		template.setDefaultTimeout(properties.getDefaultTimeout());
		template.setMaxKeys(properties.getMaxKeys());
		template.setHeartbeat(properties.getInvocation().getHeartbeat());
		template.setHolderDiagnosis(properties.getDiagnosis().isEnabled());
		template.setMaxInvocationConnections(properties.getInvocation().getMaxConnections());
		template.setListeners(listeners.orderedStream().toList());
		return template;
	}

	@Bean
	AdvisoryLockShutdown reactiveAdvisoryLockShutdown(ObjectProvider<R2dbcAdvisoryLockTemplate> templates) {
		return new AdvisoryLockShutdown(templates);
	}

	@Bean
	@ConditionalOnProperty(prefix = "advisory-lock.startup-check", name = "enabled", havingValue = "true",
			matchIfMissing = true)
	StartupExclusionCheck reactiveAdvisoryLockStartupCheck(ObjectProvider<R2dbcAdvisoryLockTemplate> templates,
			AdvisoryLockProperties properties) {
		return StartupExclusionCheck.r2dbc(templates, properties.getStartupCheck().getTimeout());
	}

	/**
	 * The interception of annotated methods where {@link AdvisoryLockAutoConfiguration}
	 * did not apply (no JDBC): a blocking method then fails at startup naming what it
	 * lacks.
	 */
	@Configuration(proxyBeanMethods = false)
	@Conditional(AdvisoryLockAutoConfiguration.AnnotationEnabledCondition.class)
	static class AnnotationConfiguration {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		@ConditionalOnMissingBean
		static AdvisoryLockBeanPostProcessor advisoryLockBeanPostProcessor(Environment environment,
				ObjectProvider<AdvisoryLockOperations> operations, ListableBeanFactory beanFactory) {
			return AdvisoryLockAutoConfiguration.annotationPostProcessor(environment, operations, beanFactory);
		}

	}

}
