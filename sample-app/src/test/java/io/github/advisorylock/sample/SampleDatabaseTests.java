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
package io.github.advisorylock.sample;

import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Base of the sample's Spring tests: the application on the test database (embedded
 * PostgreSQL 18 unless {@code ADVISORY_LOCK_TEST_URL} is set), with no advisory lock left
 * after any test.
 *
 * <p>
 * Scheduled jobs are off in every in-process test ({@code sample.jobs.enabled=false}): a
 * cached context would keep running them, and holding their locks, while later tests run;
 * the tests of a job call it themselves.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
public abstract class SampleDatabaseTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		// Generous, so that every concurrent caller gets the lock on a loaded machine and
		// meets the rule rather than the timeout; the tests of the timeout set their own.
		registry.add("advisory-lock.default-timeout", () -> "30s");
		registry.add("spring.datasource.hikari.maximum-pool-size", () -> "24");
		registry.add("sample.jobs.enabled", () -> "false");
	}

}
