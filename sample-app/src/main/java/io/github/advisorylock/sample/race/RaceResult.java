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

package io.github.advisorylock.sample.race;

import java.util.Map;

/**
 * What one variant's concurrent attempts for one user came to.
 *
 * @param variant the variant
 * @param successes attempts that inserted a pending request
 * @param rejections attempts that saw the limit reached and were turned away cleanly
 * @param errors attempts that failed with an error, counted by kind (such as
 * {@code unique violation})
 * @param pendingRows the pending requests the user has afterwards: the rule allows one
 */
public record RaceResult(RaceVariant variant, int successes, int rejections, Map<String, Integer> errors,
		long pendingRows) {

	/**
	 * Return how many attempts failed with an error.
	 * @return the number of errors, of every kind
	 */
	public int errorCount() {
		return this.errors.values().stream().mapToInt(Integer::intValue).sum();
	}

	/**
	 * Return whether the rule "at most one pending request" held.
	 * @return whether the user has at most one pending request
	 */
	public boolean ruleHeld() {
		return this.pendingRows <= 1;
	}

}
