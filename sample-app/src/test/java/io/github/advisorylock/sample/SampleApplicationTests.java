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

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.test.NoAdvisoryLocksLeft;
import io.github.advisorylock.test.PgLocks;
import io.github.advisorylock.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests the sample over HTTP against real PostgreSQL: concurrent requests for one user create one pending request.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ExtendWith(NoAdvisoryLocksLeft.class)
class SampleApplicationTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		// Generous, so that every concurrent request gets the lock on a loaded machine and meets the rule.
		registry.add("advisory-lock.default-timeout", () -> "30s");
	}

	@Autowired
	private SetupRequestService service;

	private final ExecutorService executor = Executors.newFixedThreadPool(8);

	private RestClient http;

	// A plain RestClient, not TestRestTemplate, whose package and module differ between Spring Boot 3 and 4.
	@Value("${local.server.port}")
	void http(int port) {
		this.http = RestClient.create("http://localhost:" + port);
	}

	@AfterEach
	void stopThreads() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(HANG_SECONDS, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void createsThenRejectsASecondPendingRequest() {
		UUID user = UUID.randomUUID();
		ResponseEntity<String> created = createSetupRequest(user);
		assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
		assertThat(created.getHeaders().getLocation()).hasPath("/users/" + user + "/setup-requests/"
				+ this.service.pending(user).get(0));
		ResponseEntity<String> rejected = createSetupRequest(user);
		assertThat(rejected.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
		assertThat(rejected.getHeaders().getContentType()).hasToString("application/problem+json");
	}

	@Test
	void concurrentRequestsForOneUserCreateExactlyOnePendingRequest() throws Exception {
		UUID user = UUID.randomUUID();
		int requests = 8;
		CyclicBarrier start = new CyclicBarrier(requests);
		List<Future<ResponseEntity<String>>> responses = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			responses.add(this.executor.submit(() -> {
				start.await(HANG_SECONDS, TimeUnit.SECONDS);
				return createSetupRequest(user);
			}));
		}
		List<ResponseEntity<String>> answers = new ArrayList<>();
		for (Future<ResponseEntity<String>> response : responses) {
			answers.add(response.get(HANG_SECONDS, TimeUnit.SECONDS));
		}
		// One creation; every other request waited for the lock and was then rejected by the rule, not by the
		// unique index (that would be a 500) nor by a lock timeout.
		assertThat(answers).filteredOn((answer) -> answer.getStatusCode() == HttpStatus.CREATED).hasSize(1);
		assertThat(answers).filteredOn((answer) -> answer.getStatusCode() != HttpStatus.CREATED)
			.hasSize(requests - 1)
			.allSatisfy((answer) -> {
				assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
				assertThat(answer.getBody()).contains("already has 1 pending setup request");
			});
		assertThat(this.service.pending(user)).hasSize(1);
	}

	private ResponseEntity<String> createSetupRequest(UUID user) {
		return this.http.post()
			.uri("/users/{id}/setup-requests", user)
			.retrieve()
			// Every status is an answer to assert on, not an exception.
			.onStatus((status) -> true, (request, response) -> {
			})
			.toEntity(String.class);
	}

}
