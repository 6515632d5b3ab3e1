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

import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The client's own log of every answer of a chaos run, shared by the load's threads and
 * read by the fault injector (to see that a held lock made a request busy) and by the
 * checks.
 *
 * @author advisory-lock authors
 */
final class ClientLog {

	private final long startNanos = System.nanoTime();

	private final Instant started = Instant.now();

	private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();

	/**
	 * The busy answers alone, so that waiting for one does not read the whole log again
	 * and again.
	 */
	private final Queue<Answer> busy = new ConcurrentLinkedQueue<>();

	/**
	 * Return the time since the run started, the clock of every answer and fault window.
	 * @return milliseconds
	 */
	long now() {
		return (System.nanoTime() - this.startNanos) / 1_000_000;
	}

	/**
	 * Return this machine's clock when the run started, so that a time of the database's
	 * clock (the same machine's) can be placed in the run's.
	 * @return when the run started
	 */
	Instant started() {
		return this.started;
	}

	/**
	 * Record an answer.
	 * @param answer the answer
	 */
	void add(Answer answer) {
		this.answers.add(answer);
		if (answer.busy()) {
			this.busy.add(answer);
		}
	}

	/**
	 * Return every answer so far.
	 * @return a snapshot, in no particular order
	 */
	List<Answer> answers() {
		return List.copyOf(this.answers);
	}

	/**
	 * Return whether a request about a subject got the busy 409, sent at or after a given
	 * time: the fact that shows a lock held from outside made a caller wait past its
	 * timeout.
	 * @param subject the user
	 * @param sentSince the earliest time sent
	 * @return whether such an answer is in the log
	 */
	boolean busySince(UUID subject, long sentSince) {
		return this.busy.stream()
			.anyMatch((answer) -> subject.equals(answer.subject()) && answer.sentMillis() >= sentSince);
	}

}
