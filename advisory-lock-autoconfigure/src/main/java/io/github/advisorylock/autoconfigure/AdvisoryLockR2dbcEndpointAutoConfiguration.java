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
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint;
import io.github.advisorylock.actuate.KeyLabels;
import io.github.advisorylock.actuate.ReactiveAdvisoryLocksEndpoint;
import io.github.advisorylock.actuate.ReactiveAdvisoryLocksEndpointWebExtension;
import io.github.advisorylock.pglocks.R2dbcAdvisoryLockInspector;
import io.r2dbc.spi.ConnectionFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the {@link ReactiveAdvisoryLocksEndpoint advisorylocks} Actuator
 * endpoint in an application without a JDBC {@code DataSource}: it reads {@code pg_locks}
 * over R2DBC on a connection of its own from the driver under each
 * {@code ConnectionFactory} bean. It backs off where
 * {@link AdvisoryLockEndpointAutoConfiguration} made an {@link AdvisoryLocksEndpoint},
 * which reads the same locks over JDBC.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(after = { AdvisoryLockR2dbcAutoConfiguration.class, AdvisoryLockEndpointAutoConfiguration.class })
@ConditionalOnClass(name = { "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
		"org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint",
		"reactor.core.publisher.Mono", "io.r2dbc.postgresql.PostgresqlConnectionFactory" })
@ConditionalOnAvailableEndpoint(ReactiveAdvisoryLocksEndpoint.class)
@ConditionalOnBean(type = "io.r2dbc.spi.ConnectionFactory")
@ConditionalOnMissingBean(AdvisoryLocksEndpoint.class)
@EnableConfigurationProperties(AdvisoryLockProperties.class)
public final class AdvisoryLockR2dbcEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ReactiveAdvisoryLocksEndpoint reactiveAdvisoryLocksEndpoint(Map<String, ConnectionFactory> connectionFactories,
			ObjectProvider<ConnectionFactory> connectionFactory, AdvisoryLockProperties properties,
			ObjectProvider<KeyLabels> labels) {
		boolean includeQuery = properties.getEndpoint().isIncludeQuery();
		// Bounded like a diagnosis: the endpoint must answer when the pool is exhausted.
		Duration timeout = properties.getDiagnosis().getTimeout();
		Map<String, R2dbcAdvisoryLockInspector> inspectors = new LinkedHashMap<>();
		connectionFactories
			.forEach((name, each) -> inspectors.put(name, new R2dbcAdvisoryLockInspector(each, timeout, includeQuery)));
		return new ReactiveAdvisoryLocksEndpoint(inspectors,
				DataSourceBeans.defaultName(connectionFactories, connectionFactory), labels.getIfUnique());
	}

	@Bean
	@ConditionalOnMissingBean
	ReactiveAdvisoryLocksEndpointWebExtension reactiveAdvisoryLocksEndpointWebExtension(
			ReactiveAdvisoryLocksEndpoint endpoint, AdvisoryLockProperties properties) {
		return new ReactiveAdvisoryLocksEndpointWebExtension(endpoint, properties.getDiagnosis().getTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ReactiveAdvisoryLockOperations.class)
	@Conditional(AdvisoryLockEndpointAutoConfiguration.KeyLabelsCondition.class)
	KeyLabels advisoryLockKeyLabels(AdvisoryLockProperties properties) {
		return new KeyLabels(properties.getEndpoint().getKeyLabels());
	}

}
