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

import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A user's plan, which decides how many setup requests may be pending at once.
 */
public enum Plan {

	/** One pending request at a time. */
	FREE("free", 1),

	/** Three pending requests at a time. */
	PRO("pro", 3);

	private final String id;

	private final int pendingLimit;

	Plan(String id, int pendingLimit) {
		this.id = id;
		this.pendingLimit = pendingLimit;
	}

	/**
	 * Return the plan's id, as stored and as written in JSON.
	 * @return {@code "free"} or {@code "pro"}
	 */
	@JsonValue
	public String id() {
		return this.id;
	}

	/**
	 * Return how many setup requests may be pending at once.
	 * @return the limit
	 */
	public int pendingLimit() {
		return this.pendingLimit;
	}

	/**
	 * Return the plan of an id.
	 * @param id {@code "free"} or {@code "pro"}
	 * @return the plan, or empty for another id
	 */
	public static Optional<Plan> of(String id) {
		for (Plan plan : values()) {
			if (plan.id.equals(id)) {
				return Optional.of(plan);
			}
		}
		return Optional.empty();
	}

	static Plan fromId(String id) {
		return of(id).orElseThrow(() -> new IllegalArgumentException("Unknown plan '" + id + "'"));
	}

}
