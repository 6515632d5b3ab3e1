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

import java.util.UUID;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.observation.ObservingLockAcquisitionListener;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link AdvisoryLockObservationAutoConfiguration}: the
 * {@link ObservingLockAcquisitionListener} observes the auto-configured locks when there
 * is an {@link ObservationRegistry}, and nothing of it exists otherwise. What the
 * listener records is tested in
 * {@code io.github.advisorylock.observation.ObservingLockAcquisitionListenerTests}.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockObservationAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockObservationAutoConfiguration.class))
		.withBean(DataSource.class, () -> TestDatabase.get().dataSource());

	private final String namespace = "observed-" + UUID.randomUUID();

	@Test
	void listenerObservesTheLocksWithAnObservationRegistryAndIsAbsentWithoutOneOrWithoutMicrometer() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry).run((context) -> {
			assertThat(context).hasSingleBean(ObservingLockAcquisitionListener.class);
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(
					(status) -> context.getBean(AdvisoryLockOperations.class).lock(this.namespace, 1));
			TestObservationRegistryAssert.assertThat(registry).hasObservationWithNameEqualTo("advisory.lock.acquire");
		});
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(ObservingLockAcquisitionListener.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer")).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(ObservingLockAcquisitionListener.class);
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(
					(status) -> context.getBean(AdvisoryLockOperations.class).lock(this.namespace, 1));
		});
	}

}
