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

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.advisorylock.LockBusyException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * HTTP access to setup requests.
 */
@RestController
class SetupRequestController {

	private final SetupRequestService service;

	SetupRequestController(SetupRequestService service) {
		this.service = service;
	}

	@PostMapping("/users/{userId}/setup-requests")
	ResponseEntity<Map<String, UUID>> create(@PathVariable UUID userId) {
		UUID id = this.service.create(userId);
		return ResponseEntity.created(URI.create("/users/" + userId + "/setup-requests/" + id))
			.body(Map.of("id", id, "userId", userId));
	}

	@GetMapping("/users/{userId}/setup-requests")
	List<UUID> pending(@PathVariable UUID userId) {
		return this.service.pending(userId);
	}

	@ExceptionHandler
	ProblemDetail limitReached(PendingLimitReachedException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> busy(LockBusyException ex) {
		// Another request for the same user holds the lock for longer than the timeout: ask the client to retry.
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.header("Retry-After", "1")
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "Another request for this user is in progress"));
	}

}
