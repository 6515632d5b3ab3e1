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
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import io.github.advisorylock.test.TestDatabase;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed input at volume: generated ids, amounts and bodies that the sample's HTTP API must answer with 400 and
 * problem details naming what to fix, never with a 5xx. jqwik has no Spring test support, so the application is
 * started once for all tries.
 */
class MalformedInputProperties {

	private static final String NOBODY = new UUID(0, 0).toString();

	private static ConfigurableApplicationContext application;

	private static Http http;

	@BeforeContainer
	static void start() {
		Map<String, Object> properties = new HashMap<>(TestDatabase.get().springDataSourceProperties());
		properties.put("server.port", "0");
		properties.put("server.address", "127.0.0.1");
		application = new SpringApplicationBuilder(SampleApplication.class).properties(properties).run();
		http = new Http(application.getEnvironment().getRequiredProperty("local.server.port", Integer.class));
	}

	@AfterContainer
	static void stop() {
		if (application != null) {
			application.close();
		}
	}

	@Property(tries = 300)
	void aMalformedIdInThePathIsABadRequest(@ForAll("notUuids") String id) {
		HttpResponse<String> response = http.post("/users/" + id + "/setup-requests", null);
		assertBadRequest(response, "userId must be a UUID, got '" + id + "'");
	}

	@Property(tries = 300)
	void aNonPositiveAmountIsABadRequest(@ForAll @LongRange(min = Long.MIN_VALUE, max = 0) long amount) {
		HttpResponse<String> response = http.post("/accounts/" + NOBODY + "/withdrawals",
				"{\"amount\":" + amount + "}");
		assertBadRequest(response, "amount: must be greater than 0");
	}

	@Property(tries = 100)
	void anAmountBeyondALongIsABadRequest(@ForAll("hugeNumbers") String amount) {
		HttpResponse<String> response = http.post("/transfers",
				"{\"from\":\"" + NOBODY + "\",\"to\":\"" + NOBODY + "\",\"amount\":" + amount + "}");
		assertBadRequest(response, "Unreadable request body");
	}

	@Property(tries = 300)
	void anyBodyThatIsNotAnAccountIsABadRequest(@ForAll("notAccounts") String body) {
		assertBadRequest(http.post("/accounts", body), "");
	}

	@Provide
	Arbitrary<String> notUuids() {
		return Arbitraries.strings()
			.withChars("0123456789abcdefABCDEF-")
			.withCharRange('g', 'z')
			.ofMinLength(1)
			.ofMaxLength(40)
			.filter((id) -> !isUuid(id));
	}

	@Provide
	Arbitrary<String> hugeNumbers() {
		return Arbitraries.strings().numeric().ofMinLength(20).ofMaxLength(60).map((digits) -> "9" + digits);
	}

	@Provide
	Arbitrary<String> notAccounts() {
		Arbitrary<String> text = Arbitraries.strings().ofMaxLength(60);
		Arbitrary<String> fields = Arbitraries.of("balance", "dailyWithdrawalLimit", "plan", "amount");
		Arbitrary<String> values = Arbitraries.oneOf(Arbitraries.longs().between(Long.MIN_VALUE, 0).map(String::valueOf),
				Arbitraries.of("null", "\"ten\"", "[]", "{}", "1.5", "true"));
		// Objects with one field, or a field of the wrong kind, and arbitrary text: never a valid new account.
		Arbitrary<String> objects = fields.flatMap((field) -> values.map((value) -> "{\"" + field + "\":" + value + "}"));
		return Arbitraries.oneOf(text, objects);
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
