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

import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.sample.NotFoundException;
import io.github.advisorylock.sample.setup.Plan;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The report of a plan over HTTP. A report turned away by the plan's limit is
 * {@code 429 Too Many Requests}, not the {@code 409} of a busy user's lock: the client
 * did nothing that conflicts, there are just enough reports running.
 */
@RestController
class PlanReportController {

	private final PlanReportService reports;

	PlanReportController(PlanReportService reports) {
		this.reports = reports;
	}

	@GetMapping("/plans/{plan}/report")
	PlanReport report(@PathVariable String plan) {
		return this.reports.report(Plan.of(plan).orElseThrow(() -> new NotFoundException("Plan", plan)));
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> tooMany(LockBusyException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				"As many reports of this plan run as its limit allows; retry shortly");
		problem.setTitle("Too many reports");
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
	}

}
