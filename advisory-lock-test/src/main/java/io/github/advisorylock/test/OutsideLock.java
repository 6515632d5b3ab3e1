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

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.advisorylock.test.TestSessions.TestSession;

/**
 * An advisory lock held from outside the application, by a session of the
 * {@link AdvisoryLockTester}'s own in a transaction of its own, as another instance of
 * the application or another service would hold it. While it is held, a call of the
 * application for the same namespace and value waits ({@code BLOCK}), is refused
 * ({@code TRY}, a {@code LockBusyException}) or skipped ({@code SKIP}).
 * {@link #release()} or {@link #close()} rolls the transaction back, which releases the
 * lock: use it in a try-with-resources block.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see AdvisoryLockTester#hold(String, Object)
 */
public final class OutsideLock implements AutoCloseable {

	private final AdvisoryLockTester tester;

	private final TestSession session;

	private final String namespace;

	private final Object value;

	private final List<Long> keys;

	private final int pid;

	private final AtomicBoolean released = new AtomicBoolean();

	OutsideLock(AdvisoryLockTester tester, TestSession session, String namespace, Object value, List<Long> keys,
			int pid) {
		this.tester = tester;
		this.session = session;
		this.namespace = namespace;
		this.value = value;
		this.keys = keys;
		this.pid = pid;
	}

	/**
	 * Return the namespace of the lock.
	 * @return the namespace
	 */
	public String namespace() {
		return this.namespace;
	}

	/**
	 * Return the value the key was derived from.
	 * @return the value
	 */
	public Object value() {
		return this.value;
	}

	/**
	 * Return the 64-bit key, derived with the application's {@code LockKeyStrategy}.
	 * @return the key
	 */
	public long key() {
		return this.keys.get(0);
	}

	/**
	 * Return the backend process id of the holding session, as {@code pg_locks} and
	 * {@code pg_stat_activity} show it.
	 * @return the pid
	 */
	public int pid() {
		return this.pid;
	}

	/**
	 * Wait until the given number of other sessions wait for this lock, as
	 * {@code pg_locks} shows them ({@code granted = false}): the fact to wait for before
	 * releasing the lock in a test of callers that queue, rather than a sleep.
	 * @param count how many waiters to wait for, at least
	 * @return this lock
	 * @throws AssertionError if they are not there within 30 seconds, with what
	 * {@code pg_locks} showed
	 */
	public OutsideLock awaitWaiters(int count) {
		this.tester.awaitLocks((locks) -> locks.stream()
			.filter((lock) -> this.keys.contains(lock.key()) && !lock.fence() && !lock.granted()
					&& lock.pid() != this.pid)
			.count() >= count, () -> count + " session(s) waiting for " + this);
		return this;
	}

	/**
	 * Release the lock, by rolling back the holder's transaction, and give its connection
	 * back. Releasing twice is allowed and does nothing.
	 */
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			this.tester.released(this);
			this.session.close();
		}
	}

	/**
	 * Release the lock, as {@link #release()} does.
	 */
	@Override
	public void close() {
		release();
	}

	@Override
	public String toString() {
		return "the lock of namespace '" + this.namespace + "' and value '" + Objects.toString(this.value) + "' (key "
				+ ((this.keys.size() == 1) ? this.keys.get(0) : "s " + this.keys) + ") held from outside by session "
				+ this.pid;
	}

}
