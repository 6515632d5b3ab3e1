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

package io.github.advisorylock.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.advisorylock.LockRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;

/**
 * Whether a template still takes locks, and the waits its close cancels. Once
 * {@linkplain #close() closed}, at shutdown, no acquisition starts, and waits in progress
 * and ones granted meanwhile fail ({@link LockFailures#shuttingDown}). One per template,
 * shared by its executors.
 *
 * @author advisory-lock authors
 */
public final class LockLifecycle {

	private final Set<Runnable> waits = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	/**
	 * Refuse an acquisition once the template is closed:
	 * {@link CannotAcquireLockException}.
	 */
	public void checkOpen(LockRequest request) {
		if (this.closed) {
			throw LockFailures.shuttingDown(request.namespace(), null);
		}
	}

	/** Return whether the template was closed. */
	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * Return what an acquisition ended as the template closed fails with: the shutdown,
	 * caused by the failure, once closed; the failure otherwise.
	 * @param failure the failure, or {@code null} for an acquisition that was granted
	 * @return the exception to throw, or {@code null} for a granted one while open
	 */
	public @Nullable RuntimeException closedOr(LockRequest request, @Nullable RuntimeException failure) {
		return this.closed ? LockFailures.shuttingDown(request.namespace(), failure) : failure;
	}

	/**
	 * Register a wait in progress for {@link #close()} to cancel, at once if closed.
	 * @param cancel cancels the wait on the server, without blocking and without throwing
	 * @return what to run once the wait ended, to deregister it
	 */
	public Runnable whileWaiting(Runnable cancel) {
		this.waits.add(cancel);
		if (this.closed) {
			cancel.run();
		}
		return () -> this.waits.remove(cancel);
	}

	/**
	 * Refuse new acquisitions, and cancel the waits in progress.
	 */
	public void close() {
		this.closed = true;
		this.waits.forEach(Runnable::run);
	}

}
