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

import org.junit.jupiter.api.BeforeEach;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * Base of the sample's tests over HTTP: the application on a random port of the test
 * database, and an {@link Http} client of it for each test.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
public abstract class SampleHttpTests extends SampleDatabaseTests {

	@Value("${local.server.port}")
	private int port;

	private Http http;

	@BeforeEach
	void client() {
		this.http = new Http(this.port);
	}

	/**
	 * Return the client of the application under test.
	 * @return the client
	 */
	protected Http http() {
		return this.http;
	}

}
