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

import io.github.advisorylock.pglocks.DirectConnections;
import io.github.advisorylock.pglocks.DirectConnectionsRegistry;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link DirectConnections} of each {@code DataSource}, shared by the diagnosis of
 * busy locks and the {@code advisorylocks} endpoint so that their reads outside the
 * application's pool have one bound between them per {@code DataSource}.
 *
 * @author advisory-lock authors
 */
@Configuration(proxyBeanMethods = false)
class DirectConnectionsConfiguration {

	@Bean
	@ConditionalOnMissingBean
	DirectConnectionsRegistry advisoryLockDirectConnections(AdvisoryLockProperties properties) {
		return new DirectConnectionsRegistry(properties.getDiagnosis().getTimeout());
	}

}
