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

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * A user's request to set something up, pending until completed or cancelled, or expired
 * by a scheduled job when left pending too long.
 *
 * @param id the request's id
 * @param userId the user who made it
 * @param status {@code pending}, {@code completed}, {@code cancelled} or {@code expired}
 * @param createdAt when it was made
 */
public record SetupRequest(UUID id, UUID userId, String status, OffsetDateTime createdAt) {

	/** The status of a request that counts against the plan's limit. */
	public static final String PENDING = "pending";

	/** Every status a request can have. */
	public static final List<String> STATUSES = List.of(PENDING, "completed", "cancelled", "expired");

}
