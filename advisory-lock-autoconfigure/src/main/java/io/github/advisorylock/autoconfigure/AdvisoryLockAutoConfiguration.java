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

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.interceptor.AdvisoryLockBeanPostProcessor;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.pglocks.DirectConnectionsRegistry;
import io.github.advisorylock.pglocks.PgLocksHolderDiagnosis;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AllNestedConditions;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of advisory locks: {@link AdvisoryLockOperations} on the
 * application's {@link DataSource}s, and the interception of
 * {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked} methods.
 *
 * <p>
 * Applies with spring-jdbc, a {@link DataSource} bean and a
 * {@code PlatformTransactionManager} bean ({@link OnLockPrerequisitesCondition}); without
 * them it backs off, and {@link AdvisoryLockPrerequisitesAutoConfiguration} fails the
 * startup of an application that uses the locks, so that no {@code @AdvisoryLocked}
 * method runs unlocked. The operations know every default-candidate {@code DataSource} by
 * bean name, with the primary (or only) one as their default. Every bean backs off to the
 * application's own. Other auto-configurations are named, not referenced: their packages
 * differ between Spring Boot 3 and 4.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(afterName = {
		// Spring Boot 3
		"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
		"org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
		"org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration",
		"org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
		"org.springframework.boot.autoconfigure.r2dbc.R2dbcAutoConfiguration",
		// Spring Boot 4
		"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
		"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
		"org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
		// Spring Boot 4 orders R2dbcTransactionManagerAutoConfiguration only before
		// TransactionAutoConfiguration: ordering this one after the latter alone would
		// pull it ahead of the ConnectionFactory it needs, and an application without
		// JDBC would ignore @Transactional: so R2DBC's own comes first.
		"org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration" })
@Conditional(OnLockPrerequisitesCondition.class)
@EnableConfigurationProperties(AdvisoryLockProperties.class)
@Import(DirectConnectionsConfiguration.class)
@ImportRuntimeHints(AdvisoryLockRuntimeHints.class)
public final class AdvisoryLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockKeyStrategy advisoryLockKeyStrategy() {
		return LockKeyStrategy.standard();
	}

	@Bean
	@ConditionalOnMissingBean(AdvisoryLockOperations.class)
	AdvisoryLockTemplate advisoryLockOperations(Map<String, DataSource> dataSources,
			ObjectProvider<DataSource> dataSource, LockKeyStrategy keyStrategy, AdvisoryLockProperties properties,
			ObjectProvider<LockHolderDiagnosis> holderDiagnosis, ObjectProvider<LockAcquisitionListener> listeners,
			@InvocationLockDataSource ObjectProvider<DataSource> invocationDataSource) {
		AdvisoryLockTemplate template = new AdvisoryLockTemplate(dataSources,
				DataSourceBeans.defaultName(dataSources, dataSource));
		template.setInvocationDataSource(invocationDataSource.getIfAvailable());
		template.setHeartbeat(properties.getInvocation().getHeartbeat());
		template.setMaxInvocationConnections(properties.getInvocation().getMaxConnections());
		template.setKeyStrategy(keyStrategy);
		template.setDefaultTimeout(properties.getDefaultTimeout());
		template.setMaxKeys(properties.getMaxKeys());
		template.setHolderDiagnosis(holderDiagnosis.getIfUnique());
		template.setListeners(listeners.orderedStream().toList());
		return template;
	}

	@Bean
	AdvisoryLockShutdown advisoryLockShutdown(ObjectProvider<AdvisoryLockTemplate> templates) {
		return new AdvisoryLockShutdown(templates);
	}

	@Bean
	@ConditionalOnProperty(prefix = "advisory-lock.startup-check", name = "enabled", havingValue = "true",
			matchIfMissing = true)
	StartupExclusionCheck advisoryLockStartupCheck(ObjectProvider<AdvisoryLockTemplate> templates,
			AdvisoryLockProperties properties) {
		return StartupExclusionCheck.jdbc(templates, properties.getStartupCheck().getTimeout());
	}

	@Bean
	@ConditionalOnMissingBean(LockHolderDiagnosis.class)
	@ConditionalOnProperty(prefix = "advisory-lock.diagnosis", name = "enabled", havingValue = "true",
			matchIfMissing = true)
	PgLocksHolderDiagnosis advisoryLockHolderDiagnosis(DirectConnectionsRegistry directConnections) {
		return new PgLocksHolderDiagnosis(directConnections);
	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(AnnotationEnabledCondition.class)
	static class AnnotationConfiguration {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		@ConditionalOnMissingBean
		static AdvisoryLockBeanPostProcessor advisoryLockBeanPostProcessor(Environment environment,
				ObjectProvider<AdvisoryLockOperations> operations, ListableBeanFactory beanFactory) {
			return annotationPostProcessor(environment, operations, beanFactory);
		}

	}

	/**
	 * Make the post processor that intercepts annotated methods; the R2DBC
	 * auto-configuration makes the same one where this one did not apply.
	 */
	static AdvisoryLockBeanPostProcessor annotationPostProcessor(Environment environment,
			ObjectProvider<AdvisoryLockOperations> operations, ListableBeanFactory beanFactory) {
		// Looked up at the first Mono or Flux call, so that no bean method names a
		// Reactor type and a JDBC-only application never loads one.
		AdvisoryLockBeanPostProcessor postProcessor = new AdvisoryLockBeanPostProcessor(operations::getObject,
				() -> beanFactory.getBean(ReactiveAdvisoryLockOperations.class));
		// Class proxies by default, as Spring Boot does for AOP.
		postProcessor
			.setProxyTargetClass(environment.getProperty("spring.aop.proxy-target-class", Boolean.class, Boolean.TRUE));
		return postProcessor;
	}

	/**
	 * Matches unless {@code advisory-lock.annotation.enabled}, or its deprecated name
	 * {@code advisory-lock.enabled}, is anything but {@code true}; the prerequisites
	 * check of annotated methods shares it.
	 */
	static final class AnnotationEnabledCondition extends AllNestedConditions {

		AnnotationEnabledCondition() {
			super(ConfigurationPhase.PARSE_CONFIGURATION);
		}

		@ConditionalOnProperty(prefix = "advisory-lock.annotation", name = "enabled", havingValue = "true",
				matchIfMissing = true)
		static final class Enabled {

		}

		@ConditionalOnProperty(prefix = "advisory-lock", name = "enabled", havingValue = "true", matchIfMissing = true)
		static final class NotDisabledByTheOldName {

		}

	}

}
