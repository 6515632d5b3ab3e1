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

package io.github.advisorylock.test;

import org.assertj.core.api.AbstractAssert;

/**
 * AssertJ assertions on {@link ConcurrentCalls}, which prove from {@code pg_locks} and
 * the bodies of the application's {@code @AdvisoryLocked} methods that a lock serializes
 * them, by a procedure that needs no timing:
 * <ol>
 * <li>the key (every permit of a limit) is held from outside, by a session of the kit's
 * own;</li>
 * <li>the calls start, each on a thread of its own;</li>
 * <li>the assertion waits until {@code pg_locks} shows every call waiting for the key; a
 * call that ends, or enters a locked method's body, before that did not wait, and fails
 * the assertion;</li>
 * <li>the key is released, the calls run, and each entry into and exit from a locked
 * method's body is seen; more calls in bodies at once than the lock allows fail the
 * assertion, as does a call that fails.</li>
 * </ol>
 * It refuses to run on a thread in a test-managed transaction ({@code @Transactional} on
 * the test, or the JDBC slices' own), saying how to switch it off for the test. Only the
 * bodies of {@code @AdvisoryLocked} methods are watched, blocking ones and those
 * returning {@code Mono} or {@code Flux}, not Kotlin {@code suspend} functions nor locks
 * taken with {@code AdvisoryLockOperations}: for those, hold the lock with
 * {@link AdvisoryLockTester#hold(String, Object)} and await the callers with
 * {@link OutsideLock#awaitWaiters(int)}.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class ConcurrentCallsAssert extends AbstractAssert<ConcurrentCallsAssert, ConcurrentCalls> {

	/**
	 * Create assertions on concurrent calls.
	 * @param actual the calls
	 */
	public ConcurrentCallsAssert(ConcurrentCalls actual) {
		super(actual, ConcurrentCallsAssert.class);
	}

	/**
	 * Verify that the calls wait on the exclusive lock of a namespace and value, and then
	 * run one at a time.
	 * @param namespace the namespace, as in {@code @AdvisoryLocked(namespace = …)}
	 * @param value the key value, as the key expression gives it
	 * @return this assertion
	 */
	public ConcurrentCallsAssert areSerializedBy(String namespace, Object value) {
		return areLimitedBy(namespace, value, 1);
	}

	/**
	 * Verify that the calls wait on the concurrency limit of a namespace and value
	 * ({@code @AdvisoryLocked(permits = …)}), and then run at most {@code permits} at a
	 * time.
	 * @param namespace the namespace, as in {@code @AdvisoryLocked(namespace = …)}
	 * @param value the key value, as the key expression gives it
	 * @param permits the limit's permits
	 * @return this assertion
	 */
	public ConcurrentCallsAssert areLimitedBy(String namespace, Object value, int permits) {
		isNotNull();
		this.actual.runBehind(namespace, value, permits);
		return this.myself;
	}

}
