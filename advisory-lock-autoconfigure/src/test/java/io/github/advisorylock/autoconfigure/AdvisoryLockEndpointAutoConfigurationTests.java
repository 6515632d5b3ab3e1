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

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint;
import io.github.advisorylock.actuate.AdvisoryLocksEndpointWebExtension;
import io.github.advisorylock.actuate.KeyLabels;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.UnconnectedDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link AdvisoryLockEndpointAutoConfiguration}: when the
 * {@link AdvisoryLocksEndpoint} and its {@link KeyLabels} exist, and how their properties
 * bind. None of them reads a lock, so none starts the test database; what the endpoint
 * shows is tested in {@code io.github.advisorylock.actuate.AdvisoryLocksEndpointTests}.
 */
class AdvisoryLockEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockEndpointAutoConfiguration.class))
		.withBean(DataSource.class, UnconnectedDataSource::new);

	private final ApplicationContextRunner exposed = this.contextRunner
		.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks");

	@Test
	void endpointIsAbsentUnlessExposed() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(AdvisoryLocksEndpoint.class)
			.doesNotHaveBean(AdvisoryLocksEndpointWebExtension.class)
			.doesNotHaveBean(KeyLabels.class));
	}

	@Test
	void exposedEndpointHasAWebExtension() {
		this.exposed.run((context) -> assertThat(context).hasSingleBean(AdvisoryLocksEndpoint.class)
			.hasSingleBean(AdvisoryLocksEndpointWebExtension.class));
	}

	@Test
	void endpointIsAbsentWithoutActuator() {
		this.exposed.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(AdvisoryLockOperations.class)
				.doesNotHaveBean(AdvisoryLocksEndpoint.class)
				.doesNotHaveBean(KeyLabels.class));
	}

	@Test
	void keyLabelsCanBeTurnedOff() {
		this.exposed.withPropertyValues("advisory-lock.endpoint.key-labels=0")
			.run((context) -> assertThat(context).hasSingleBean(AdvisoryLocksEndpoint.class)
				.doesNotHaveBean(KeyLabels.class));
	}

	@Test
	void keepsTheEndpointButNoKeyLabelsWhenTheLockAutoConfigurationBacksOff() {
		// No transaction manager: AdvisoryLockAutoConfiguration backs off, and nothing
		// would feed the labels.
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockAutoConfiguration.class,
					AdvisoryLockEndpointAutoConfiguration.class))
			.withBean(DataSource.class, UnconnectedDataSource::new)
			.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(AdvisoryLockOperations.class)
				.hasSingleBean(AdvisoryLocksEndpoint.class)
				.doesNotHaveBean(KeyLabels.class));
	}

	@Test
	void keyLabelsThatAreNotANumberAreABindingErrorNamingTheProperty() {
		this.exposed.withPropertyValues("advisory-lock.endpoint.key-labels=lots")
			.run((context) -> assertThat(context).getFailure()
				.hasRootCauseInstanceOf(NumberFormatException.class)
				.satisfies((failure) -> assertThat(causes(failure)).filteredOn(BindException.class::isInstance)
					.first()
					.asString()
					.contains("advisory-lock.endpoint.key-labels")));
		this.exposed.withPropertyValues("advisory-lock.endpoint.key-labels=-1")
			.run((context) -> assertThat(context).getFailure()
				.satisfies((failure) -> assertThat(causes(failure)).filteredOn(BindException.class::isInstance)
					.isNotEmpty())
				.hasRootCauseMessage("advisory-lock.endpoint.key-labels must not be negative, was -1"));
	}

	private static List<Throwable> causes(Throwable failure) {
		List<Throwable> causes = new ArrayList<>();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			causes.add(cause);
		}
		return causes;
	}

}
