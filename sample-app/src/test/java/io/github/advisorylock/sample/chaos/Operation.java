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
package io.github.advisorylock.sample.chaos;

import java.util.Set;

/**
 * What the chaos load asks of the sample, and which answers each kind may get while no
 * fault is in progress: a valid request gets its success or a business (or busy) 409; a
 * malformed or hostile one gets exactly its 400 or 404, with problem details.
 *
 * @author advisory-lock authors
 */
enum Operation {

	/**
	 * Create a setup request for a user: 201, or 409 at the plan's limit or when the
	 * user's lock stays busy.
	 */
	CREATE_REQUEST(false, 201, 409),

	/**
	 * Complete a request the client created: 200, or 409 once it is no longer pending.
	 */
	COMPLETE_REQUEST(false, 200, 409),

	/** Cancel a request the client created: 200, or 409 once it is no longer pending. */
	CANCEL_REQUEST(false, 200, 409),

	/**
	 * Withdraw from an account: 201, or 409 over the daily limit, beyond the balance, or
	 * busy.
	 */
	WITHDRAW(false, 201, 409),

	/**
	 * Transfer between two accounts, in either direction: 201, or 409 beyond the balance
	 * or busy.
	 */
	TRANSFER(false, 201, 409),

	/**
	 * Report on a plan, read-only under a limit of reports per plan (TRY, transaction
	 * scope): 200, or 429 while as many run as the limit allows.
	 */
	PLAN_REPORT(false, 200, 429),

	/** A user id that is no UUID. */
	BAD_ID(true, 400),

	/** An amount above the API's maximum. */
	HUGE_AMOUNT(true, 400),

	/** A negative amount. */
	NEGATIVE_AMOUNT(true, 400),

	/** A transfer from an account to itself. */
	SELF_TRANSFER(true, 400),

	/** A withdrawal from an account that does not exist. */
	UNKNOWN_ACCOUNT(true, 404),

	/** A setup request for a user that does not exist. */
	UNKNOWN_USER(true, 404);

	private final boolean hostile;

	private final Set<Integer> expected;

	Operation(boolean hostile, Integer... expected) {
		this.hostile = hostile;
		this.expected = Set.of(expected);
	}

	/**
	 * Return whether this is a malformed or hostile request, which must be refused.
	 * @return whether it is
	 */
	boolean hostile() {
		return this.hostile;
	}

	/**
	 * Return whether a status is an answer this operation may get outside of any fault.
	 * @param status the HTTP status
	 * @return whether it is expected
	 */
	boolean expects(int status) {
		return this.expected.contains(status);
	}

	/**
	 * Return the answers it may get outside of any fault, for messages.
	 * @return the statuses
	 */
	Set<Integer> expected() {
		return this.expected;
	}

}
