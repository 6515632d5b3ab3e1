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

package io.github.advisorylock;

/**
 * How an advisory lock is shared between transactions.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public enum LockMode {

	/**
	 * One holder at a time ({@code pg_advisory_xact_lock}): writers of the protected
	 * rule.
	 */
	EXCLUSIVE,

	/**
	 * Any number of shared holders at once, excluding exclusive ones
	 * ({@code pg_advisory_xact_lock_shared}): readers that need the rule not to change
	 * under them.
	 */
	SHARED

}
