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

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.integration.AdvisoryLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of a Spring Integration {@code LockRegistry} on invocation-scoped
 * advisory locks ({@link AdvisoryLockRegistry}), so that
 * {@code LockRegistryLeaderInitiator} and {@code LockRequestHandlerAdvice} keep their
 * registry's contract and lose their lock table.
 *
 * <p>
 * Applies with {@code spring-integration-core} and {@link AdvisoryLockOperations} but no
 * {@code LockRegistry} bean: a team's own {@code JdbcLockRegistry} keeps its place until
 * deleted. Spring Integration's classes are named, not referenced, so that none loads
 * where it is absent.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(after = AdvisoryLockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.integration.support.locks.LockRegistry")
@ConditionalOnBean(AdvisoryLockOperations.class)
public final class AdvisoryLockIntegrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(type = "org.springframework.integration.support.locks.LockRegistry")
	AdvisoryLockRegistry advisoryLockRegistry(AdvisoryLockOperations locks, AdvisoryLockProperties properties) {
		return new AdvisoryLockRegistry(locks, properties.getIntegration().getNamespace());
	}

}
