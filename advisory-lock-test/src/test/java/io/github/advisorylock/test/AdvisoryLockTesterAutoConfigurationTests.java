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

package io.github.advisorylock.test;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link AdvisoryLockTesterAutoConfiguration} where it cannot work.
 */
class AdvisoryLockTesterAutoConfigurationTests {

	@Test
	void withoutTheApplicationsDatabaseTheContextFailsSayingWhatIsMissing() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockTesterAutoConfiguration.class))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("AdvisoryLockTester needs the application's database")
				.hasMessageContaining("one DataSource bean, or one R2DBC ConnectionFactory bean"));
	}

}
