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
package io.github.advisorylock.jdbc;

import java.time.Duration;
import java.util.concurrent.Callable;

import io.github.advisorylock.HeldLock;

import org.springframework.util.Assert;

/**
 * The locks of an {@code acquire} call: a lock session bound to no thread, released once,
 * by whichever thread comes first, while a concurrent caller waits until the release has
 * ended (so that a lock reported released is free in the database).
 */
final class JdbcAcquiredSession implements HeldLock {

	private final JdbcLockSession session;

	/** Rolls back and gives the connection back; guarded by this object. */
	private Runnable release;

	JdbcAcquiredSession(JdbcLockSession session, Runnable release) {
		this.session = session;
		this.release = release;
	}

	@Override
	public boolean isLost() {
		return this.session.isLost();
	}

	@Override
	public void checkHeld() {
		this.session.checkHeld();
	}

	@Override
	public long fencingToken() {
		return this.session.fencingToken();
	}

	@Override
	public void confirmHeld(Duration timeout) {
		Assert.notNull(timeout, "Timeout must not be null");
		Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), () -> "Timeout must be positive, but was " + timeout);
		this.session.confirm(timeout);
	}

	@Override
	public Runnable wrap(Runnable task) {
		return this.session.wrap(task);
	}

	@Override
	public <T> Callable<T> wrap(Callable<T> task) {
		return this.session.wrap(task);
	}

	@Override
	public synchronized void release() {
		Runnable release = this.release;
		this.release = () -> {
		};
		release.run();
	}

	@Override
	public String toString() {
		return this.session.toString();
	}

}
