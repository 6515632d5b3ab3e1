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

import java.util.LinkedHashMap;
import java.util.Map;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint;
import io.github.advisorylock.actuate.AdvisoryLocksEndpointWebExtension;
import io.github.advisorylock.actuate.KeyLabels;
import io.github.advisorylock.pglocks.AdvisoryLockInspector;
import io.github.advisorylock.pglocks.DirectConnectionsRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.Assert;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@link AdvisoryLocksEndpoint advisorylocks} Actuator
 * endpoint, its {@link AdvisoryLocksEndpointWebExtension web extension}, and the
 * {@link KeyLabels} that label its keys.
 *
 * <p>
 * Applies when Actuator is on the class path and the endpoint is available. The key
 * labels cost a map update on each acquisition, so they exist only then, and only where
 * {@link AdvisoryLockAutoConfiguration} made the locks they listen to. The endpoint reads
 * outside a Hikari pool, bounded like a diagnosis by
 * {@code advisory-lock.diagnosis.timeout}, so that it answers while the pool is
 * exhausted.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(after = AdvisoryLockAutoConfiguration.class)
@ConditionalOnClass(name = { "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
		"org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint" })
@ConditionalOnAvailableEndpoint(AdvisoryLocksEndpoint.class)
@ConditionalOnBean(DataSource.class)
// The endpoint shows every advisory lock, so it stays when AdvisoryLockAutoConfiguration
// backs off (no transaction manager), and then needs the properties registered here.
@EnableConfigurationProperties(AdvisoryLockProperties.class)
@Import(DirectConnectionsConfiguration.class)
@ImportRuntimeHints(AdvisoryLockRuntimeHints.class)
public final class AdvisoryLockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	AdvisoryLocksEndpoint advisoryLocksEndpoint(Map<String, DataSource> dataSources,
			ObjectProvider<DataSource> dataSource, AdvisoryLockProperties properties,
			DirectConnectionsRegistry directConnections, ObjectProvider<KeyLabels> labels) {
		boolean includeQuery = properties.getEndpoint().isIncludeQuery();
		Map<String, AdvisoryLockInspector> inspectors = new LinkedHashMap<>();
		dataSources.forEach((name, each) -> inspectors.put(name,
				AdvisoryLockInspector.forDataSource(each, directConnections, includeQuery)));
		return new AdvisoryLocksEndpoint(inspectors, DataSourceBeans.defaultName(dataSources, dataSource),
				labels.getIfUnique());
	}

	@Bean
	@ConditionalOnMissingBean
	AdvisoryLocksEndpointWebExtension advisoryLocksEndpointWebExtension(AdvisoryLocksEndpoint endpoint,
			AdvisoryLockProperties properties) {
		return new AdvisoryLocksEndpointWebExtension(endpoint, properties.getDiagnosis().getTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(AdvisoryLockOperations.class)
	@Conditional(KeyLabelsCondition.class)
	KeyLabels advisoryLockKeyLabels(AdvisoryLockProperties properties) {
		return new KeyLabels(properties.getEndpoint().getKeyLabels());
	}

	/**
	 * Matches unless {@code advisory-lock.endpoint.key-labels} is 0. It binds the value
	 * as the properties do, so that a bad one fails with an error naming the property.
	 */
	static final class KeyLabelsCondition extends SpringBootCondition {

		private static final String PROPERTY = "advisory-lock.endpoint.key-labels";

		private static final BindHandler NOT_NEGATIVE = new BindHandler() {

			@Override
			public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					Object result) {
				Assert.isTrue((Integer) result >= 0, () -> PROPERTY + " must not be negative, was " + result);
				return result;
			}

		};

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			int capacity = Binder.get(context.getEnvironment())
				.bind(PROPERTY, Bindable.of(Integer.class), NOT_NEGATIVE)
				.orElseGet(() -> new AdvisoryLockProperties().getEndpoint().getKeyLabels());
			ConditionMessage.Builder message = ConditionMessage.forCondition("AdvisoryLock key labels");
			return (capacity > 0) ? ConditionOutcome.match(message.because("capacity is " + capacity))
					: ConditionOutcome.noMatch(message.because("advisory-lock.endpoint.key-labels is 0"));
		}

	}

}
