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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.test.LockHolder;
import io.github.advisorylock.test.NoAdvisoryLocksLeft;
import io.github.advisorylock.test.PgLocks;
import io.github.advisorylock.test.TestDatabase;
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

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		// Long enough that the waiting request is surely seen in pg_locks before it gives
		// up, even on a loaded machine.
		registry.add("advisory-lock.default-timeout", () -> "3s");
		// As in SampleDatabaseTests: a job's lock would be one this test leaves, and the
		// context stays cached.
		registry.add("sample.jobs.enabled", () -> "false");
	}

	@Value("${local.server.port}")
	private int port;

	@Test
	void aBusyLockAnswersConflictWithRetryAfterUntilTheHolderEnds() throws Exception {
		Http http = new Http(this.port);
		String userId = Http.json(http.post("/users", "{\"plan\":\"free\"}"), "$.id");
		long key = AdvisoryLockKeys.of("setup_request", UUID.fromString(userId));
		PgLocks locks = new PgLocks(TestDatabase.get().dataSource());
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), key)) {
			CompletableFuture<HttpResponse<String>> busy = CompletableFuture
				.supplyAsync(() -> http.post("/users/" + userId + "/setup-requests", null));
			// The request really waited on the lock before giving up, rather than failing
			// for another reason.
			locks.awaitWaiters(key, 1);
			HttpResponse<String> response = busy.get(Concurrently.HANG_SECONDS, TimeUnit.SECONDS);
			assertThat(response.statusCode()).isEqualTo(409);
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(Http.<String>json(response, "$.title")).isEqualTo("Busy");
			holder.rollback();
		}
		assertThat(http.get("/users/" + userId + "/setup-requests").body()).isEqualTo("[]");
		assertThat(http.post("/users/" + userId + "/setup-requests", null).statusCode()).isEqualTo(201);
	}

}
