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

import javax.sql.DataSource;

import io.github.advisorylock.actuate.AdvisoryLocksEndpoint;
import io.github.advisorylock.actuate.KeyLabels;
import io.github.advisorylock.jdbc.AdvisoryLockInspector;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} of the
 * {@link AdvisoryLocksEndpoint advisorylocks} Actuator endpoint, and of the {@link KeyLabels} that label its keys.
 *
 * <p>Applies when Spring Boot Actuator is on the class path and the endpoint is available (enabled, and exposed over
 * some technology: not over HTTP unless the application exposes it). The key labels, which cost a map update on each
 * acquisition, exist only then.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(after = AdvisoryLockAutoConfiguration.class)
@ConditionalOnClass(name = { "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
		"org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint" })
@ConditionalOnAvailableEndpoint(AdvisoryLocksEndpoint.class)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(AdvisoryLockProperties.class)
public final class AdvisoryLockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	AdvisoryLocksEndpoint advisoryLocksEndpoint(DataSource dataSource, AdvisoryLockProperties properties,
			ObjectProvider<KeyLabels> labels) {
		AdvisoryLockInspector inspector = new AdvisoryLockInspector(dataSource,
				properties.getEndpoint().isIncludeQuery());
		return new AdvisoryLocksEndpoint(inspector, labels.getIfUnique());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnExpression("${advisory-lock.endpoint.key-labels:1024} > 0")
	KeyLabels advisoryLockKeyLabels(AdvisoryLockProperties properties) {
		return new KeyLabels(properties.getEndpoint().getKeyLabels());
	}

}
