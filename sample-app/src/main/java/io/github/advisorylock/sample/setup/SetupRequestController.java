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

package io.github.advisorylock.sample.setup;

import java.net.URI;
import java.util.List;
import java.util.UUID;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Users and their setup requests over HTTP. Errors are problem details (see
 * {@code ApiExceptionHandler}).
 */
@RestController
class SetupRequestController {

	private final UserService users;

	private final SetupRequestService setupRequests;

	SetupRequestController(UserService users, SetupRequestService setupRequests) {
		this.users = users;
		this.setupRequests = setupRequests;
	}

	@PostMapping("/users")
	ResponseEntity<User> createUser(@Valid @RequestBody NewUser body) {
		User user = this.users.create(body.plan());
		return ResponseEntity.created(URI.create("/users/" + user.id())).body(user);
	}

	@GetMapping("/users/{userId}")
	User user(@PathVariable UUID userId) {
		return this.users.get(userId);
	}

	@PostMapping("/users/{userId}/setup-requests")
	ResponseEntity<SetupRequest> create(@PathVariable UUID userId) {
		SetupRequest request = this.setupRequests.create(userId);
		return ResponseEntity.created(URI.create("/users/" + userId + "/setup-requests/" + request.id())).body(request);
	}

	@GetMapping("/users/{userId}/setup-requests")
	List<SetupRequest> list(@PathVariable UUID userId, @RequestParam(required = false) String status) {
		return this.setupRequests.list(userId, status);
	}

	@PostMapping("/users/{userId}/setup-requests/{requestId}/complete")
	SetupRequest complete(@PathVariable UUID userId, @PathVariable UUID requestId) {
		return this.setupRequests.complete(userId, requestId);
	}

	@PostMapping("/users/{userId}/setup-requests/{requestId}/cancel")
	SetupRequest cancel(@PathVariable UUID userId, @PathVariable UUID requestId) {
		return this.setupRequests.cancel(userId, requestId);
	}

	record NewUser(@NotNull Plan plan) {
	}

}
