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

import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.LoggingSystem;

/**
 * Runs the sample on the test database (embedded PostgreSQL 18 unless
 * ADVISORY_LOCK_TEST_URL is set), so that
 * {@code ./mvnw -pl sample-app spring-boot:test-run} needs no database installed.
 */
public final class TestSampleApplication {

	private TestSampleApplication() {
	}

	/**
	 * Start the test database, then the application on it.
	 * @param args the command line arguments
	 */
	public static void main(String[] args) {
		// Hold back the embedded server's start-up log until Spring Boot configures
		// logging, as Spring Boot does.
		LoggingSystem.get(TestSampleApplication.class.getClassLoader()).beforeInitialize();
		TestDatabase.get().springDataSourceProperties().forEach(System::setProperty);
		SpringApplication.from(SampleApplication::main).run(args);
	}

}
