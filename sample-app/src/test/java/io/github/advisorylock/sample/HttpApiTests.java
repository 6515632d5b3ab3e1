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
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import io.github.advisorylock.sample.Concurrently.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's HTTP API against real PostgreSQL: status codes, problem details, and
 * concurrent requests that never end in a server error.
 */
class HttpApiTests extends SampleHttpTests {

	private static final String PROBLEM = "application/problem+json";

	private static final UUID NOBODY = UUID.fromString("00000000-0000-0000-0000-000000000000");

	@Test
	void createsAUserAndARequestThenRejectsTheSecondWithProblemDetails() {
		HttpResponse<String> user = http().post("/users", "{\"plan\":\"free\"}");
		assertThat(user.statusCode()).isEqualTo(201);
		String userId = Http.json(user, "$.id");
		assertThat(user.headers().firstValue("Location")).hasValue("/users/" + userId);
		assertThat(Http.<Integer>json(user, "$.pendingLimit")).isOne();

		HttpResponse<String> created = http().post("/users/" + userId + "/setup-requests", null);
		assertThat(created.statusCode()).isEqualTo(201);
		assertThat(created.headers().firstValue("Location"))
			.hasValue("/users/" + userId + "/setup-requests/" + Http.json(created, "$.id"));
		assertThat(Http.<String>json(created, "$.status")).isEqualTo("pending");

		HttpResponse<String> rejected = http().post("/users/" + userId + "/setup-requests", null);
		assertThat(rejected.statusCode()).isEqualTo(409);
		assertThat(rejected.headers().firstValue("Content-Type")).hasValue(PROBLEM);
		assertThat(Http.<String>json(rejected, "$.title")).isEqualTo("Pending limit reached");
		assertThat(Http.<String>json(rejected, "$.detail")).contains("limit of the free plan");
	}

	@Test
	void concurrentRequestsForOneUserGetOneCreatedAndTheRestConflict() {
		String userId = Http.json(http().post("/users", "{\"plan\":\"free\"}"), "$.id");
		List<Outcome<HttpResponse<String>>> outcomes = Concurrently.run(12,
				(i) -> http().post("/users/" + userId + "/setup-requests", null));
		List<Integer> statuses = outcomes.stream().map((outcome) -> outcome.value().statusCode()).toList();
		assertThat(statuses).containsOnly(201, 409).containsOnlyOnce(201);
		assertThat(http().get("/users/" + userId + "/setup-requests?status=pending").body()).containsOnlyOnce("\"id\"");
	}

	@Test
	void cancellingFreesTheSlotAndFinishingTwiceConflicts() {
		String userId = Http.json(http().post("/users", "{\"plan\":\"free\"}"), "$.id");
		String requests = "/users/" + userId + "/setup-requests";
		String first = Http.json(http().post(requests, null), "$.id");
		HttpResponse<String> cancelled = http().post(requests + "/" + first + "/cancel", null);
		assertThat(cancelled.statusCode()).isEqualTo(200);
		assertThat(Http.<String>json(cancelled, "$.status")).isEqualTo("cancelled");
		HttpResponse<String> again = http().post(requests + "/" + first + "/complete", null);
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(Http.<String>json(again, "$.detail")).isEqualTo("Setup request " + first + " is already cancelled");
		assertThat(http().post(requests, null).statusCode()).isEqualTo(201);
		assertThat(Http.<List<String>>json(http().get(requests), "$[*].status")).containsExactly("cancelled",
				"pending");
	}

	@Test
	void unknownUsersAndRequestsAreNotFound() {
		HttpResponse<String> noUser = http().post("/users/" + NOBODY + "/setup-requests", null);
		assertThat(noUser.statusCode()).isEqualTo(404);
		assertThat(noUser.headers().firstValue("Content-Type")).hasValue(PROBLEM);
		assertThat(Http.<String>json(noUser, "$.detail")).isEqualTo("User " + NOBODY + " does not exist");
		String userId = Http.json(http().post("/users", "{\"plan\":\"pro\"}"), "$.id");
		assertThat(http().post("/users/" + userId + "/setup-requests/" + NOBODY + "/cancel", null).statusCode())
			.isEqualTo(404);
		assertThat(http().get("/accounts/" + NOBODY).statusCode()).isEqualTo(404);
	}

	@ParameterizedTest(name = "{0} {1} {2}")
	@MethodSource("badRequests")
	void badInputIsABadRequestWithProblemDetails(String method, String path, String body, String detail) {
		HttpResponse<String> response = "GET".equals(method) ? http().get(path) : http().post(path, body);
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type")).hasValue(PROBLEM);
		assertThat(Http.<String>json(response, "$.detail")).contains(detail);
	}

	static Stream<Arguments> badRequests() {
		String requests = "/users/" + NOBODY + "/setup-requests";
		return Stream.of(
				Arguments.of("POST", "/users/not-a-uuid/setup-requests", null,
						"userId must be a UUID, got 'not-a-uuid'"),
				Arguments.of("POST", requests + "/42/cancel", null, "requestId must be a UUID"),
				Arguments.of("GET", "/accounts/123", null, "accountId must be a UUID"),
				Arguments.of("GET", requests + "?status=lost", null, "Unknown status 'lost'"),
				Arguments.of("POST", "/users", "{\"plan\":\"gold\"}", "from String \"gold\""),
				Arguments.of("POST", "/users", "{}", "plan: must not be null"),
				Arguments.of("POST", "/users", "{plan", "Unreadable request body: "),
				Arguments.of("POST", "/accounts", "{\"balance\":-1,\"dailyWithdrawalLimit\":0}",
						"balance: must be greater than or equal to 0; dailyWithdrawalLimit: must be greater than 0"),
				Arguments.of("POST", "/accounts/" + NOBODY + "/withdrawals", "{\"amount\":0}",
						"amount: must be greater than 0"),
				Arguments.of("POST", "/accounts/" + NOBODY + "/withdrawals", "{\"amount\":" + Long.MAX_VALUE + "}",
						"amount: must be less than or equal to 1000000000000"),
				Arguments.of("POST", "/accounts/" + NOBODY + "/withdrawals", "{\"amount\":\"ten\"}",
						"from String \"ten\""),
				Arguments.of("POST", "/transfers", "{\"from\":\"" + NOBODY + "\",\"amount\":5}",
						"to: must not be null"),
				Arguments.of("POST", "/transfers",
						"{\"from\":\"" + NOBODY + "\",\"to\":\"" + NOBODY + "\",\"amount\":5}",
						"A transfer needs two different accounts"));
	}

	@Test
	void withdrawalsAndTransfersOverHttpSucceedUntilTheDailyLimitOrTheBalanceAnswersConflict() {
		String from = Http.json(http().post("/accounts", "{\"balance\":1000,\"dailyWithdrawalLimit\":300}"), "$.id");
		String to = Http.json(http().post("/accounts", "{\"balance\":0,\"dailyWithdrawalLimit\":300}"), "$.id");
		HttpResponse<String> withdrawal = http().post("/accounts/" + from + "/withdrawals", "{\"amount\":300}");
		assertThat(withdrawal.statusCode()).isEqualTo(201);
		HttpResponse<String> overLimit = http().post("/accounts/" + from + "/withdrawals", "{\"amount\":1}");
		assertThat(overLimit.statusCode()).isEqualTo(409);
		assertThat(Http.<String>json(overLimit, "$.title")).isEqualTo("Daily limit exceeded");
		HttpResponse<String> transfer = http().post("/transfers",
				"{\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"amount\":700}");
		assertThat(transfer.statusCode()).isEqualTo(201);
		HttpResponse<String> overdrawn = http().post("/transfers",
				"{\"from\":\"" + from + "\",\"to\":\"" + to + "\",\"amount\":1}");
		assertThat(overdrawn.statusCode()).isEqualTo(409);
		assertThat(Http.<String>json(overdrawn, "$.title")).isEqualTo("Insufficient funds");
		HttpResponse<String> account = http().get("/accounts/" + from);
		assertThat(Http.<Integer>json(account, "$.balance")).isZero();
		assertThat(Http.<Integer>json(account, "$.withdrawnToday")).isEqualTo(300);
	}

	@Test
	void concurrentWithdrawalsOverHttpStayWithinTheLimitWithoutServerErrors() {
		String account = Http.json(http().post("/accounts", "{\"balance\":5000,\"dailyWithdrawalLimit\":1000}"),
				"$.id");
		List<Outcome<HttpResponse<String>>> outcomes = Concurrently.run(16,
				(i) -> http().post("/accounts/" + account + "/withdrawals", "{\"amount\":100}"));
		List<Integer> statuses = outcomes.stream().map((outcome) -> outcome.value().statusCode()).toList();
		assertThat(statuses).containsOnly(201, 409);
		assertThat(statuses).filteredOn((status) -> status == 201).hasSize(10);
		assertThat(Http.<Integer>json(http().get("/accounts/" + account), "$.withdrawnToday")).isEqualTo(1000);
	}

}
