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

import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.transaction.annotation.Transactional;

/**
 * The JDBC application of the kit's tests, as a user's application would be: a service
 * with locked methods of each kind the tests drive, on the test database.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class JdbcApplication {

	/**
	 * Point the application at the test database, from a test's
	 * {@code @DynamicPropertySource}.
	 * @param registry the test's registry
	 */
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		// With R2DBC's driver on the class path too, Spring Boot would back off its
		// DataSource.
		registry.add("spring.autoconfigure.exclude", BootAutoConfigurations::excludeR2dbc);
		registry.add("advisory-lock.default-timeout", () -> "30s");
	}

	@Bean
	SetupRequests setupRequests() {
		return new SetupRequests();
	}

	static class SetupRequests {

		private final AtomicInteger remindersSent = new AtomicInteger();

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#user")
		public String request(String user) {
			return "created";
		}

		@Transactional
		public String requestUnlocked(String user) {
			return "created";
		}

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#user", waitMode = WaitMode.TRY)
		public String tryRequest(String user) {
			return "created";
		}

		@Transactional
		@AdvisoryLocked(namespace = "setup_request", key = "#user", mode = LockMode.SHARED)
		public String read(String user) {
			return "read";
		}

		@Transactional
		@AdvisoryLocked(namespace = "export", key = "#user", permits = 2)
		public String export(String user) {
			return "exported";
		}

		@Transactional
		@AdvisoryLocked(namespace = "export", key = "#user", permits = 2, waitMode = WaitMode.TRY)
		public String tryExport(String user) {
			return "exported";
		}

		@AdvisoryLocked(namespace = "setup_request", key = "#user", scope = LockScope.INVOCATION,
				waitMode = WaitMode.SKIP)
		public void sendReminder(String user) {
			this.remindersSent.incrementAndGet();
		}

		public int remindersSent() {
			return this.remindersSent.get();
		}

	}

}
