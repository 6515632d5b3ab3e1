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

import java.util.UUID;

/**
 * Thrown when a user already has as many pending setup requests as allowed: a business rejection, not an error.
 */
public class PendingLimitReachedException extends RuntimeException {

	PendingLimitReachedException(UUID userId, int limit) {
		super("User " + userId + " already has " + limit + " pending setup request(s)");
	}

}
