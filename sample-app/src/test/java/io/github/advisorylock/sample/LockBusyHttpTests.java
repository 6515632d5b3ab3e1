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

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request whose lock another session holds past the timeout: 409 with
 * {@code Retry-After}, nothing written; once the holder rolls back, the same request
 * succeeds.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ExtendWith(NoAdvisoryLocksLeft.class)
class LockBusyHttpTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		registry.add("advisory-lock.default-timeout", () -> TIMEOUT.toMillis() + "ms");
		// As in SampleDatabaseTests: a job's lock would be one this test leaves, and the
		// context stays cached.
		registry.add("sample.jobs.enabled", () -> "false");
	}

	@Value("${local.server.port}")
	private int port;

	@Test
	void aBusyLockAnswersConflictWithRetryAfterUntilTheHolderEnds() {
		Http http = new Http(this.port);
		String userId = Http.json(http.post("/users", "{\"plan\":\"free\"}"), "$.id");
		long key = AdvisoryLockKeys.of("setup_request", UUID.fromString(userId));
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key)) {
			long sent = System.nanoTime();
			HttpResponse<String> response = http.post("/users/" + userId + "/setup-requests", null);
			Duration answeredAfter = Duration.ofNanos(System.nanoTime() - sent);
			assertThat(response.statusCode()).isEqualTo(409);
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(Http.<String>json(response, "$.title")).isEqualTo("Busy");
			// The request really waited on the lock for its timeout before giving up,
			// rather than failing for another reason. (Watching it wait in pg_locks would
			// race with that timeout on a loaded machine.)
			assertThat(answeredAfter).as("the busy request's time").isGreaterThanOrEqualTo(TIMEOUT);
			holder.rollback();
		}
		assertThat(http.get("/users/" + userId + "/setup-requests").body()).isEqualTo("[]");
		assertThat(http.post("/users/" + userId + "/setup-requests", null).statusCode()).isEqualTo(201);
	}

}
