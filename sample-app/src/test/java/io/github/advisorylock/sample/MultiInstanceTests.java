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

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.advisorylock.sample.Concurrently.Outcome;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three sample-app processes, each with its own JVM and connection pool, against one
 * PostgreSQL: concurrent HTTP load across them keeps every user's pending requests within
 * the plan, conserves money, never answers 5xx, and leaves no advisory lock. The load is
 * bounded in count and in time, and goes to loopback only.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class MultiInstanceTests {

	private static final int INSTANCES = 3;

	private static final long OPENING_BALANCE = 10_000;

	private static final long DAILY_LIMIT = 2_000;

	private static final List<SampleInstance> instances = new ArrayList<>();

	private static final List<Http> clients = new ArrayList<>();

	private final JdbcClient jdbc = JdbcClient.create(TestDatabase.get().dataSource());

	@BeforeAll
	static void startInstances() throws IOException {
		// The schema once, here: three instances running CREATE TABLE IF NOT EXISTS at
		// the same moment can collide.
		new ResourceDatabasePopulator(new ClassPathResource("schema.sql")).execute(TestDatabase.get().dataSource());
		for (int i = 0; i < INSTANCES; i++) {
			instances.add(SampleInstance.start("instance-" + i, Path.of("target", "multi-instance"),
					"--spring.datasource.hikari.maximum-pool-size=8",
					// Generous: 9 callers on 2 cores share 3 JVMs; a busy answer is still
					// a 409, but the rules are the point.
					"--advisory-lock.default-timeout=10s",
					// A job's lock, held between requests, would be one that
					// NoAdvisoryLocksLeft finds after a test.
					"--sample.jobs.enabled=false"));
		}
		for (SampleInstance instance : instances) {
			instance.awaitStarted();
			clients.add(instance.http());
		}
	}

	@AfterAll
	static void stopInstances() {
		SampleInstance.stopAll(instances);
	}

	@Test
	void burstsForOneUserAcrossInstancesCreateExactlyThePlansLimit() {
		for (String plan : List.of("free", "pro")) {
			for (int user = 0; user < 4; user++) {
				String userId = Http.json(clients.get(0).post("/users", "{\"plan\":\"" + plan + "\"}"), "$.id");
				List<Outcome<HttpResponse<String>>> outcomes = Concurrently.run(6,
						(i) -> clients.get(i % INSTANCES).post("/users/" + userId + "/setup-requests", null));
				List<Integer> statuses = outcomes.stream().map((outcome) -> outcome.value().statusCode()).toList();
				assertThat(statuses).containsOnly(201, 409)
					.filteredOn((status) -> status == 201)
					.hasSize("free".equals(plan) ? 1 : 3);
			}
		}
	}

	@Test
	void mixedLoadAcrossInstancesKeepsEveryRule() {
		List<String> users = IntStream.range(0, 12)
			.mapToObj((i) -> Http.<String>json(
					clients.get(i % INSTANCES).post("/users", "{\"plan\":\"" + ((i % 2 == 0) ? "free" : "pro") + "\"}"),
					"$.id"))
			.toList();
		List<String> accounts = IntStream.range(0, 5)
			.mapToObj((i) -> Http.<String>json(
					clients.get(i % INSTANCES)
						.post("/accounts",
								"{\"balance\":" + OPENING_BALANCE + ",\"dailyWithdrawalLimit\":" + DAILY_LIMIT + "}"),
					"$.id"))
			.toList();
		Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		List<Outcome<Integer>> callers = Concurrently.run(9, (caller) -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			int sent = 0;
			for (int request = 0; request < 40 && System.nanoTime() < deadline; request++) {
				Http http = clients.get(random.nextInt(INSTANCES));
				HttpResponse<String> response = switch (random.nextInt(4)) {
					case 0 -> {
						String from = accounts.get(random.nextInt(accounts.size()));
						String to = accounts.get(random.nextInt(accounts.size()));
						yield from.equals(to)
								? http.post("/accounts/" + from + "/withdrawals",
										"{\"amount\":" + (1 + random.nextInt(500)) + "}")
								: http.post("/transfers", "{\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"amount\":"
										+ (1 + random.nextInt(3_000)) + "}");
					}
					default -> createAndMaybeCancel(http, users.get(random.nextInt(users.size())), random);
				};
				statuses.merge(response.statusCode(), 1, Integer::sum);
				sent++;
			}
			return sent;
		});
		assertThat(callers).allSatisfy((caller) -> assertThat(caller.failure()).isNull());
		assertThat(statuses.keySet()).as("statuses %s", statuses)
			.allSatisfy((status) -> assertThat(status).isLessThan(500));
		assertThat(statuses).containsKeys(200, 201, 409);

		for (String user : users) {
			long pending = this.jdbc.sql("SELECT count(*) FROM setup_requests WHERE user_id = ? AND status = 'pending'")
				.param(UUID.fromString(user))
				.query(Long.class)
				.single();
			int limit = Http.json(clients.get(0).get("/users/" + user), "$.pendingLimit");
			assertThat(pending).as("pending requests of user %s", user).isLessThanOrEqualTo(limit);
		}
		UUID[] accountIds = accounts.stream().map(UUID::fromString).toArray(UUID[]::new);
		long balances = this.jdbc.sql("SELECT sum(balance) FROM accounts WHERE id = ANY (?)")
			.param(accountIds)
			.query(Long.class)
			.single();
		long withdrawn = this.jdbc.sql("SELECT coalesce(sum(amount), 0) FROM withdrawals WHERE account_id = ANY (?)")
			.param(accountIds)
			.query(Long.class)
			.single();
		assertThat(balances + withdrawn).isEqualTo(accounts.size() * OPENING_BALANCE);
		assertThat(withdrawn).isLessThanOrEqualTo(accounts.size() * DAILY_LIMIT);
	}

	private static HttpResponse<String> createAndMaybeCancel(Http http, String user, ThreadLocalRandom random) {
		HttpResponse<String> created = http.post("/users/" + user + "/setup-requests", null);
		if (created.statusCode() == 201 && random.nextBoolean()) {
			String request = Http.json(created, "$.id");
			return clients.get(random.nextInt(INSTANCES))
				.post("/users/" + user + "/setup-requests/" + request + "/cancel", null);
		}
		return created;
	}

}
