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

import io.github.advisorylock.observation.ObservingLockAcquisitionListener;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the observation of advisory locks
 * ({@link ObservingLockAcquisitionListener}): metrics and tracing through Micrometer.
 *
 * <p>
 * Applies where the application has an {@link ObservationRegistry} (Actuator configures
 * one); without Micrometer nothing of it loads. Spring Boot's registry auto-configuration
 * is named, not referenced: its package differs between Spring Boot 3 and 4.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(after = AdvisoryLockAutoConfiguration.class, afterName = {
		// Spring Boot 3
		"org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
		// Spring Boot 4
		"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
@ConditionalOnBean(ObservationRegistry.class)
public final class AdvisoryLockObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ObservingLockAcquisitionListener advisoryLockObservingListener(ObservationRegistry registry) {
		return new ObservingLockAcquisitionListener(registry);
	}

}
