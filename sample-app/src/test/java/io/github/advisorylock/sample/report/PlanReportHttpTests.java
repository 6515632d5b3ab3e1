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

package io.github.advisorylock.sample.report;

import java.net.http.HttpResponse;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.sample.Http;
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
 * The sample's concurrency limit, from an HTTP client's view: a plan's report counts its
 * users' requests, and while as many reports of a plan run as its limit allows (here,
 * other sessions hold both permits, as two reports on other instances would), a third is
 * {@code 429} with {@code Retry-After}, while another plan's report still runs.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ExtendWith(NoAdvisoryLocksLeft.class)
class PlanReportHttpTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		TestDatabase.get().springDataSourceProperties().forEach((name, value) -> registry.add(name, () -> value));
		// As in SampleDatabaseTests: a job's lock would be one this test leaves, and the
		// context stays cached.
		registry.add("sample.jobs.enabled", () -> "false");
	}

	@Value("${local.server.port}")
	private int port;

	@Test
	void aReportCountsThePlansRequests() {
		Http http = new Http(this.port);
		long pendingBefore = Http.<Number>json(http.get("/plans/pro/report"), "$.pending").longValue();
		String userId = Http.json(http.post("/users", "{\"plan\":\"pro\"}"), "$.id");
		assertThat(http.post("/users/" + userId + "/setup-requests", null).statusCode()).isEqualTo(201);
		HttpResponse<String> report = http.get("/plans/pro/report");
		assertThat(report.statusCode()).isEqualTo(200);
		assertThat(Http.<String>json(report, "$.plan")).isEqualTo("pro");
		assertThat(Http.<Number>json(report, "$.pending").longValue()).isEqualTo(pendingBefore + 1);
		assertThat(http.get("/plans/gold/report").statusCode()).isEqualTo(404);
	}

	@Test
	void whileBothPermitsOfAPlanAreHeldAThirdReportIsTooManyAndAnotherPlansRuns() {
		Http http = new Http(this.port);
		long key = AdvisoryLockKeys.of("plan_report", "pro");
		try (LockHolder first = LockHolder.exclusive(TestDatabase.get().dataSource(),
				AdvisoryLockKeys.permitSlot(key, 0));
				LockHolder second = LockHolder.exclusive(TestDatabase.get().dataSource(),
						AdvisoryLockKeys.permitSlot(key, 1))) {
			HttpResponse<String> turnedAway = http.get("/plans/pro/report");
			assertThat(turnedAway.statusCode()).isEqualTo(429);
			assertThat(turnedAway.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(Http.<String>json(turnedAway, "$.title")).isEqualTo("Too many reports");
			assertThat(http.get("/plans/free/report").statusCode()).isEqualTo(200);
			second.rollback();
			assertThat(http.get("/plans/pro/report").statusCode()).isEqualTo(200);
		}
	}

}
