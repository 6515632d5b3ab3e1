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

import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockRequest;

import org.springframework.util.Assert;

/**
 * The settings every acquisition of a template reads, on both stacks. Immutable: a setter
 * replaces the template's value, so a call never mixes two settings. The checks name the
 * property to correct, the same on both templates.
 *
 * @param defaultTimeout the timeout of a {@code BLOCK} that gives none
 * @param keyStrategy how key values become keys
 * @param maxKeys the most distinct keys one call may lock
 * @param listeners the listeners told of every acquisition
 * @author advisory-lock authors
 */
public record LockSettings(Duration defaultTimeout, LockKeyStrategy keyStrategy, int maxKeys,
		LockAcquisitionListeners listeners) {

	/** As both templates' {@code DEFAULT_MAX_KEYS}. */
	private static final int DEFAULT_MAX_KEYS = 64;

	/**
	 * Return a new template's settings: standard key derivation, 64 keys, no listener.
	 * @param defaultTimeout the timeout of a {@code BLOCK} that gives none
	 */
	public static LockSettings of(Duration defaultTimeout) {
		return new LockSettings(defaultTimeout, LockKeyStrategy.standard(), DEFAULT_MAX_KEYS,
				LockAcquisitionListeners.NONE);
	}

	/** Return these settings with another default timeout. */
	public LockSettings withDefaultTimeout(Duration defaultTimeout) {
		return new LockSettings(defaultTimeout, this.keyStrategy, this.maxKeys, this.listeners);
	}

	/** Return these settings with another key derivation. */
	public LockSettings withKeyStrategy(LockKeyStrategy keyStrategy) {
		Assert.notNull(keyStrategy, "LockKeyStrategy must not be null");
		return new LockSettings(this.defaultTimeout, keyStrategy, this.maxKeys, this.listeners);
	}

	/**
	 * Return these settings with another limit of keys per call.
	 * @param maxKeys the limit, positive ({@code advisory-lock.max-keys})
	 */
	public LockSettings withMaxKeys(int maxKeys) {
		Assert.isTrue(maxKeys > 0, () -> "advisory-lock.max-keys must be positive, was " + maxKeys);
		return new LockSettings(this.defaultTimeout, this.keyStrategy, maxKeys, this.listeners);
	}

	/**
	 * Return these settings with other listeners.
	 * @param listeners the listeners, in the order they hear of an acquisition
	 */
	public LockSettings withListeners(List<LockAcquisitionListener> listeners) {
		return new LockSettings(this.defaultTimeout, this.keyStrategy, this.maxKeys,
				LockAcquisitionListeners.of(listeners));
	}

	/**
	 * Return how long a {@code BLOCK} of the request waits: its timeout, or the default.
	 */
	public Duration timeout(LockRequest request) {
		return (request.timeout() != null) ? request.timeout() : this.defaultTimeout;
	}

	/**
	 * Check {@code advisory-lock.invocation.heartbeat}.
	 * @param heartbeat how often a lock session is kept alive
	 * @return it, between 100ms and 1h
	 */
	public static Duration checkHeartbeat(Duration heartbeat) {
		Assert.isTrue(heartbeat.toMillis() >= 100 && heartbeat.compareTo(Duration.ofHours(1)) <= 0,
				() -> "advisory-lock.invocation.heartbeat must be between 100ms and 1h, was " + heartbeat);
		return heartbeat;
	}

	/**
	 * Check {@code advisory-lock.invocation.max-connections}.
	 * @param maxConnections the most invocation-scoped locks held at once
	 * @return it, positive
	 */
	public static int checkMaxConnections(int maxConnections) {
		Assert.isTrue(maxConnections > 0,
				() -> "advisory-lock.invocation.max-connections must be positive, was " + maxConnections);
		return maxConnections;
	}

}
