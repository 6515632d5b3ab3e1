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

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.Assert;

/**
 * Matches when the application has spring-jdbc, a {@code DataSource} bean and a
 * {@code PlatformTransactionManager} bean, read from {@link LockPrerequisite}, so that
 * what the auto-configuration requires and what the startup check names are stated once.
 * Evaluated when beans are registered, as {@code @ConditionalOnBean} is, so that it sees
 * the beans of the auto-configurations ordered before.
 *
 * @author advisory-lock authors
 */
class OnLockPrerequisitesCondition extends SpringBootCondition implements ConfigurationCondition {

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Assert.state(context.getBeanFactory() != null, "Advisory lock prerequisites need a bean factory");
		Set<LockPrerequisite> missing = LockPrerequisite.missing(context.getBeanFactory())
			.stream()
			.filter(LockPrerequisite::backsOff)
			.collect(Collectors.toCollection(() -> EnumSet.noneOf(LockPrerequisite.class)));
		if (missing.isEmpty()) {
			return ConditionOutcome.match(ConditionMessage.of("spring-jdbc, a DataSource bean and a "
					+ "PlatformTransactionManager bean are there for advisory locks"));
		}
		return ConditionOutcome.noMatch(
				ConditionMessage.of("advisory locks cannot be taken: " + LockPrerequisite.describeMissing(missing)));
	}

}
