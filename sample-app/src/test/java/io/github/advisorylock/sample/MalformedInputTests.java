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
import java.util.stream.Stream;

import io.github.advisorylock.testsupport.Generated;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed input at volume: generated ids, amounts and bodies ({@link Generated}) that
 * the sample's HTTP API must answer with 400 and problem details naming what to fix,
 * never with a 5xx.
 */
@ExtendWith(Generated.ReportSeed.class)
class MalformedInputTests extends SampleHttpTests {

	private static final String NOBODY = new UUID(0, 0).toString();

	/** URL-safe text of hex digits, dashes and other letters that is not a UUID. */
	static Stream<Named<String>> notUuids() {
		return Generated.cases(300, (generated) -> {
			String id = generated.text("0123456789abcdefABCDEF-ghijklmnopqrstuvwxyz", 1, 40);
			while (isUuid(id)) {
				id = generated.text("0123456789abcdefABCDEF-ghijklmnopqrstuvwxyz", 1, 40);
			}
			return id;
		});
	}

	static Stream<Named<Long>> nonPositiveAmounts() {
		return Generated.cases(300, (generated) -> generated.between(Long.MIN_VALUE, 0));
	}

	/** Numbers of 21 to 61 digits, far beyond a long. */
	static Stream<Named<String>> hugeNumbers() {
		return Generated.cases(100, (generated) -> "9" + generated.text("0123456789", 20, 60));
	}

	/**
	 * Objects with one field, or a field of the wrong kind, and arbitrary text: never a
	 * valid new account.
	 */
	static Stream<Named<String>> notAccounts() {
		return Generated.cases(300, (generated) -> generated.anyOf(() -> generated.utf16(60), () -> {
			String field = generated.oneOf("balance", "dailyWithdrawalLimit", "plan", "amount");
			String value = generated.anyOf(() -> String.valueOf(generated.between(Long.MIN_VALUE, 0)),
					() -> generated.oneOf("null", "\"ten\"", "[]", "{}", "1.5", "true"));
			return "{\"" + field + "\":" + value + "}";
		}));
	}

	@ParameterizedTest
	@MethodSource("notUuids")
	void aMalformedIdInThePathIsABadRequest(String id) {
		HttpResponse<String> response = http().post("/users/" + id + "/setup-requests", null);
		assertBadRequest(response, "userId must be a UUID, got '" + id + "'");
	}

	@ParameterizedTest
	@MethodSource("nonPositiveAmounts")
	void aNonPositiveAmountIsABadRequest(long amount) {
		HttpResponse<String> response = http().post("/accounts/" + NOBODY + "/withdrawals",
				"{\"amount\":" + amount + "}");
		assertBadRequest(response, "amount: must be greater than 0");
	}

	@ParameterizedTest
	@MethodSource("hugeNumbers")
	void anAmountBeyondALongIsABadRequest(String amount) {
		HttpResponse<String> response = http().post("/transfers",
				"{\"from\":\"" + NOBODY + "\",\"to\":\"" + NOBODY + "\",\"amount\":" + amount + "}");
		assertBadRequest(response, "Unreadable request body");
	}

	@ParameterizedTest
	@MethodSource("notAccounts")
	void anyBodyThatIsNotAnAccountIsABadRequest(String body) {
		assertBadRequest(http().post("/accounts", body), "");
	}

	private static boolean isUuid(String id) {
		try {
			UUID.fromString(id);
			return true;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private static void assertBadRequest(HttpResponse<String> response, String detail) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(Http.<String>json(response, "$.detail")).contains(detail);
	}

}
