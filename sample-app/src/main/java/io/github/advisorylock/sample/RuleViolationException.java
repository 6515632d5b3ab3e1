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

/**
 * A request that breaks a business rule given the current state, such as a plan's pending
 * limit or an account's daily withdrawal limit: answered with 409 Conflict.
 */
public abstract class RuleViolationException extends RuntimeException {

	private final String title;

	/**
	 * Create an exception.
	 * @param title a short summary of the rule, the same for every occurrence
	 * @param detail what happened in this occurrence
	 */
	protected RuleViolationException(String title, String detail) {
		super(detail);
		this.title = title;
	}

	/**
	 * Return the short summary of the rule.
	 * @return the title of the problem
	 */
	public String getTitle() {
		return this.title;
	}

}
