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

import org.springframework.util.Assert;

/**
 * The checks of the settings both drivers' templates take, each naming the property to
 * correct, so that the JDBC and the R2DBC template refuse the same values with the same
 * words. Internal: used by the driver adapters, not API.
 *
 * @author advisory-lock authors
 */
public final class LockSettings {

	private LockSettings() {
	}

	/**
	 * Check {@code advisory-lock.max-keys}.
	 * @param maxKeys the most keys one call may take
	 * @return it, positive
	 */
	public static int maxKeys(int maxKeys) {
		Assert.isTrue(maxKeys > 0, () -> "advisory-lock.max-keys must be positive, was " + maxKeys);
		return maxKeys;
	}

	/**
	 * Check {@code advisory-lock.invocation.heartbeat}.
	 * @param heartbeat how often a lock session is kept alive
	 * @return it, between 100ms and 1h
	 */
	public static Duration heartbeat(Duration heartbeat) {
		Assert.isTrue(heartbeat.toMillis() >= 100 && heartbeat.compareTo(Duration.ofHours(1)) <= 0,
				() -> "advisory-lock.invocation.heartbeat must be between 100ms and 1h, was " + heartbeat);
		return heartbeat;
	}

	/**
	 * Check {@code advisory-lock.invocation.max-connections}.
	 * @param maxConnections the most invocation-scoped locks held at once
	 * @return it, positive
	 */
	public static int maxConnections(int maxConnections) {
		Assert.isTrue(maxConnections > 0,
				() -> "advisory-lock.invocation.max-connections must be positive, was " + maxConnections);
		return maxConnections;
	}

}
