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

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockRequest;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.util.Assert;

/**
 * What every acquisition of a template shares, whatever its scope and driver: how its
 * keys are derived (and how many it may take), the listeners told of it, the timeout of a
 * {@code BLOCK} that gives none, the DEBUG line of a skip, the task a driver's failure is
 * reported under, and the template's shutdown. Each driver's template sets it up; the key
 * settings are checked here, the others by the template's setters. Internal: used by the
 * driver adapters, not API.
 *
 * <p>
 * Once {@linkplain #close() closed} (the application shuts down), no acquisition starts,
 * the waits in progress are cancelled on the server, and one granted meanwhile fails
 * rather than let its work run: each with {@link LockFailures#shuttingDown}.
 *
 * @author advisory-lock authors
 */
public class LockAcquisitions {

	private final Log logger;

	private Duration defaultTimeout;

	private LockKeyStrategy keyStrategy = LockKeyStrategy.standard();

	/** As both templates' {@code DEFAULT_MAX_KEYS}. */
	private int maxKeys = 64;

	private List<LockAcquisitionListener> listeners = List.of();

	/** How to cancel each wait in progress, on the server. */
	private final Set<Runnable> waits = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	/**
	 * Create the settings of one template.
	 * @param logger where a skip is told: the template's own log, where users have always
	 * found it
	 * @param defaultTimeout the timeout of a {@code BLOCK} that gives none
	 */
	public LockAcquisitions(Log logger, Duration defaultTimeout) {
		this.logger = logger;
		this.defaultTimeout = defaultTimeout;
	}

	/**
	 * Set the timeout of a {@code BLOCK} that gives none.
	 * @param defaultTimeout the timeout, checked by the template
	 */
	public void setDefaultTimeout(Duration defaultTimeout) {
		this.defaultTimeout = defaultTimeout;
	}

	/**
	 * Set how key values become keys.
	 * @param keyStrategy the key derivation
	 */
	public void setKeyStrategy(LockKeyStrategy keyStrategy) {
		Assert.notNull(keyStrategy, "LockKeyStrategy must not be null");
		this.keyStrategy = keyStrategy;
	}

	/**
	 * Set the most distinct keys one call may lock.
	 * @param maxKeys the limit (see {@link LockSettings#maxKeys})
	 */
	public void setMaxKeys(int maxKeys) {
		this.maxKeys = LockSettings.maxKeys(maxKeys);
	}

	/**
	 * Derive the keys of a request.
	 * @param request the request
	 * @return its keys, sorted and without repeats
	 */
	public LockKeys resolve(LockRequest request) {
		return LockKeys.resolve(request, this.keyStrategy, this.maxKeys);
	}

	/**
	 * Set the listeners told of every acquisition.
	 * @param listeners the listeners, in the order they hear of it
	 */
	public void setListeners(List<LockAcquisitionListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	/**
	 * Tell the listeners that an acquisition starts.
	 * @param request the request
	 * @param keys the keys it takes now
	 * @return what to tell them how it ended
	 */
	public Acquisition starting(LockRequest request, LockKeys keys) {
		return starting(request, keys, null);
	}

	/**
	 * Tell the listeners that an acquisition starts, as one of a concurrency limit when
	 * it is one.
	 * @param request the request
	 * @param keys the keys it takes now
	 * @param slots the keys of its limit's permits, or {@code null} for a plain lock
	 * @return what to tell them the permit taken and how it ended
	 */
	public Acquisition starting(LockRequest request, LockKeys keys, @Nullable PermitSlots slots) {
		if (slots == null) {
			return LockAcquisitionListeners.starting(this.listeners, request.namespace(), request.scope(),
					request.mode(), request.waitMode(), keys.keys(), keys.values());
		}
		return LockAcquisitionListeners.startingLimit(this.listeners, request.namespace(), request.scope(),
				request.waitMode(), slots);
	}

	/**
	 * Return how long a {@code BLOCK} of the request waits: its own timeout, or the
	 * default.
	 * @param request the request
	 * @return the timeout
	 */
	public Duration timeout(LockRequest request) {
		return (request.timeout() != null) ? request.timeout() : this.defaultTimeout;
	}

	/**
	 * Tell the DEBUG log that a {@code SKIP} found a key held.
	 * @param request the request
	 * @param keys the keys it asked for
	 */
	public void logSkipped(LockRequest request, LockKeys keys) {
		if (this.logger.isDebugEnabled()) {
			this.logger.debug(LockFailures.skippedMessage(request.namespace(), request.scope(), keys.values()));
		}
	}

	/**
	 * Refuse an acquisition once the template is closed.
	 * @param request the request
	 * @throws CannotAcquireLockException if it is
	 */
	public void checkOpen(LockRequest request) {
		if (this.closed) {
			throw LockFailures.shuttingDown(request.namespace(), null);
		}
	}

	/**
	 * Return whether the template was closed.
	 * @return whether it was
	 */
	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * Return what an acquisition that failed, or that was granted, as the template closed
	 * fails with: the shutdown, with the failure as its cause, once closed; the failure
	 * itself otherwise.
	 * @param request the request
	 * @param failure the failure, or {@code null} for an acquisition that was granted
	 * @return the exception to throw, or {@code null} for a granted one while open
	 */
	public @Nullable RuntimeException closedOr(LockRequest request, @Nullable RuntimeException failure) {
		return this.closed ? LockFailures.shuttingDown(request.namespace(), failure) : failure;
	}

	/**
	 * Register a wait in progress, which {@link #close()} cancels. Registered after the
	 * template closed, it is cancelled at once.
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
	 * Close the template's acquisitions: refuse new ones, and cancel the waits in
	 * progress.
	 */
	public void close() {
		this.closed = true;
		this.waits.forEach(Runnable::run);
	}

	/**
	 * Return what a lock statement that failed was doing, for the driver's translated
	 * exception.
	 * @param request the request
	 * @param keys the keys the statement took
	 * @return the task, naming the lock and its keys
	 */
	public static String task(LockRequest request, LockKeys keys) {
		return "Acquire advisory lock " + AdvisoryLockKeys.printable(request.namespace(), keys.values()) + " (keys "
				+ keys.keys() + ")";
	}

}
