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
 * One injected fault and its window, in milliseconds since the run started: from the
 * moment it was injected to the moment every instance answered again.
 *
 * @param kind the fault
 * @param detail what exactly was done (which instance, which sessions, which user)
 * @param instances the instances whose requests the fault may make fail: the one killed
 * or frozen, those whose sessions were ended, all for a server restart, the one behind
 * PgBouncer for its restart, none for a lock held
 * @param startMillis when it was injected
 * @param recoveredMillis when every instance answered again, or -1 if none did within the
 * bound
 * @author advisory-lock authors
 */
record FaultWindow(FaultKind kind, String detail, Set<Integer> instances, long startMillis, long recoveredMillis) {

	/**
	 * After a fault's recovery, the time in which an error is still laid to it: a pooled
	 * connection the fault broke is found broken only when next used, and a request sent
	 * just before the recovery may fail just after.
	 */
	static final long TAIL_MILLIS = 3_000;

	/**
	 * Return whether the system answered again within the bound.
	 * @return whether it recovered
	 */
	boolean recovered() {
		return this.recoveredMillis >= 0;
	}

	/**
	 * Return how long the system took to answer again on every instance.
	 * @return milliseconds from the injection
	 */
	long recoveryMillis() {
		return this.recoveredMillis - this.startMillis;
	}

	/**
	 * Return whether a request that ran from one time to another overlaps the window, its
	 * tail included.
	 * @param sent when the request was sent
	 * @param received when its answer, or its failure, came
	 * @return whether the fault may explain its failure
	 */
	boolean covers(long sent, long received) {
		long end = recovered() ? this.recoveredMillis + TAIL_MILLIS : Long.MAX_VALUE;
		return sent <= end && received >= this.startMillis;
	}

	/**
	 * Return whether the fault may explain a request's failure: the request overlaps the
	 * window, and went to an instance the fault touched.
	 * @param answer the request and its outcome
	 * @return whether the fault may explain it
	 */
	boolean explains(Answer answer) {
		return this.instances.contains(answer.instance()) && covers(answer.sentMillis(), answer.receivedMillis());
	}

}
