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
import io.github.advisorylock.shedlock.AdvisoryLockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of a ShedLock {@code LockProvider} on invocation-scoped advisory
 * locks ({@link AdvisoryLockProvider}), so that {@code @SchedulerLock} jobs keep their
 * annotation and lose their lock table.
 *
 * <p>
 * Applies with {@code shedlock-core} and {@link AdvisoryLockOperations} but no
 * {@code LockProvider} bean: a team's own {@code JdbcTemplateLockProvider} keeps its
 * place until deleted. ShedLock's classes are named, not referenced, so that none loads
 * where it is absent.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(after = AdvisoryLockAutoConfiguration.class)
@ConditionalOnClass(name = "net.javacrumbs.shedlock.core.LockProvider")
@ConditionalOnBean(AdvisoryLockOperations.class)
public final class AdvisoryLockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(type = "net.javacrumbs.shedlock.core.LockProvider")
	AdvisoryLockProvider advisoryLockProvider(AdvisoryLockOperations locks, AdvisoryLockProperties properties) {
		return new AdvisoryLockProvider(locks, properties.getShedlock().getNamespace());
	}

}
