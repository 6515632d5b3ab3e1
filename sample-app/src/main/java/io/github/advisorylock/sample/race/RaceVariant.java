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

/**
 * The kinds of concurrency control the race demo compares, each around the same
 * check-then-insert steps.
 */
public enum RaceVariant {

	/** Broken: count, then insert; concurrent attempts all count zero and all insert. */
	PLAIN("plain check-then-insert (broken)", "race_setup_requests"),

	/**
	 * Broken: the check takes {@code FOR UPDATE}, which locks the pending rows that
	 * exist, and there are none yet. (Locking a row that does exist, the user's, would
	 * work, but would also serialize every other write to it.)
	 */
	FOR_UPDATE("FOR UPDATE check-then-insert (broken)", "race_setup_requests"),

	/**
	 * The plain steps on a table with a partial unique index: the constraint refuses
	 * every second pending row.
	 */
	UNIQUE_INDEX("partial unique index", "race_setup_requests_unique"),

	/**
	 * The plain steps under {@code @AdvisoryLocked}: one attempt at a time, the rest see
	 * its row and are rejected.
	 */
	ADVISORY_LOCK("@AdvisoryLocked", "race_setup_requests"),

	/**
	 * The plain steps at SERIALIZABLE: PostgreSQL aborts all but one attempt, which a
	 * real caller must retry.
	 */
	SERIALIZABLE("SERIALIZABLE", "race_setup_requests");

	private final String label;

	private final String table;

	RaceVariant(String label, String table) {
		this.label = label;
		this.table = table;
	}

	/**
	 * Return how the demo's table names this variant.
	 * @return the label
	 */
	public String label() {
		return this.label;
	}

	String table() {
		return this.table;
	}

}
