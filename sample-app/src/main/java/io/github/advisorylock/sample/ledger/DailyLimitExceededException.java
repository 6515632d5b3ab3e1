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

package io.github.advisorylock.sample.ledger;

import java.util.UUID;

import io.github.advisorylock.sample.RuleViolationException;

/**
 * Thrown when a withdrawal would take today's withdrawals from an account above its daily
 * limit.
 */
public class DailyLimitExceededException extends RuleViolationException {

	DailyLimitExceededException(UUID accountId, long amount, long withdrawnToday, long limit) {
		super("Daily limit exceeded", "Withdrawing " + amount + " from account " + accountId + " would exceed its "
				+ "daily limit of " + limit + ": " + withdrawnToday + " already withdrawn today");
	}

}
