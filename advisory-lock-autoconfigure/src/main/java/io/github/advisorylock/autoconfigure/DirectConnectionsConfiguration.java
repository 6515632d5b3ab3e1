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

import io.github.advisorylock.pglocks.DirectConnections;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link DirectConnections} that the diagnosis of busy locks and the {@code advisorylocks} endpoint share, so that
 * their reads outside the application's pool have one bound between them. Imported by both auto-configurations; the
 * bean is {@code null} (absent to its users) when the data source is not a Hikari pool with a JDBC URL.
 *
 * @author advisory-lock authors
 */
@Configuration(proxyBeanMethods = false)
class DirectConnectionsConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@Nullable DirectConnections advisoryLockDirectConnections(DataSource dataSource, AdvisoryLockProperties properties) {
		return DirectConnections.of(dataSource, properties.getDiagnosis().getTimeout());
	}

}
