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

import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One request of the chaos load and what the client got back, as the client saw it: the
 * client's own log is what the checks compare the database with.
 *
 * @param operation what was asked
 * @param instance the index of the instance asked
 * @param sentMillis when it was sent, in milliseconds since the run started
 * @param receivedMillis when the answer, or the failure to get one, came
 * @param status the HTTP status, or {@link #NO_ANSWER} or {@link #REFUSED}
 * @param failure why no answer came (the exception), or {@code null}
 * @param title the problem details' title of a 4xx or 5xx, or {@code null}
 * @param problem whether a 4xx or 5xx came as {@code application/problem+json}
 * @param subject the user or account the request was about, or {@code null} for a hostile
 * one
 * @param target the setup request completed or cancelled, or {@code null}
 * @param created the id the answer gave to what it created (a 201), or {@code null}
 * @author advisory-lock authors
 */
record Answer(Operation operation, int instance, long sentMillis, long receivedMillis, int status,
		@Nullable String failure, @Nullable String title, boolean problem, @Nullable UUID subject,
		@Nullable UUID target, @Nullable UUID created) {

	/**
	 * The status of a request whose answer never came, though it may have reached the
	 * instance: a connection reset or timed out.
	 */
	static final int NO_ANSWER = -1;

	/**
	 * The status of a request that never reached an instance: its connection was refused
	 * (the instance was down). Certainly not carried out.
	 */
	static final int REFUSED = -2;

	/**
	 * The title of the 409 the sample answers when a lock stayed busy past its timeout.
	 */
	static final String BUSY = "Busy";

	/**
	 * Return whether the outcome is unknown: no answer, or a 5xx, either of which may
	 * come after the commit.
	 * @return whether the request may or may not have been carried out
	 */
	boolean unknown() {
		return this.status == NO_ANSWER || this.status >= 500;
	}

	/**
	 * Return whether the request failed: a 5xx, no answer, or refused. Each must fall
	 * inside a fault's window.
	 * @return whether it failed
	 */
	boolean failed() {
		return unknown() || this.status == REFUSED;
	}

	/**
	 * Return whether an answer came.
	 * @return whether the client got a status
	 */
	boolean answered() {
		return this.status > 0;
	}

	/**
	 * Return whether this is a 409 for a broken business rule (not a busy lock): the
	 * write must not exist.
	 * @return whether the request was rejected by a rule
	 */
	boolean rejectedByRule() {
		return this.status == 409 && !BUSY.equals(this.title);
	}

	/**
	 * Return whether the request found its lock busy past the timeout.
	 * @return whether it got the busy 409
	 */
	boolean busy() {
		return this.status == 409 && BUSY.equals(this.title);
	}

	/**
	 * Return how long the client waited for the answer.
	 * @return milliseconds
	 */
	long waitedMillis() {
		return this.receivedMillis - this.sentMillis;
	}

	/**
	 * Return the outcome as a short label: the status, {@code no answer} or
	 * {@code refused}.
	 * @return the label
	 */
	String outcome() {
		return switch (this.status) {
			case NO_ANSWER -> "no answer";
			case REFUSED -> "refused";
			default -> Integer.toString(this.status);
		};
	}

}
