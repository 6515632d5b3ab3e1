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

package io.github.advisorylock.autoconfigure;

import java.time.Duration;

import io.github.advisorylock.LockRequest;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.Assert;

/**
 * Configuration properties of advisory-lock, under {@code advisory-lock}.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@ConfigurationProperties("advisory-lock")
public class AdvisoryLockProperties {

	/**
	 * Whether methods annotated with @AdvisoryLocked take their locks.
	 */
	private boolean enabled = true;

	/**
	 * How long a BLOCK acquisition waits when the annotation or request gives no timeout.
	 */
	private Duration defaultTimeout = Duration.ofSeconds(2);

	/**
	 * Most distinct keys one call may lock; each takes an entry in PostgreSQL's shared lock table.
	 */
	private int maxKeys = 64;

	/**
	 * Return whether {@code @AdvisoryLocked} methods take their locks.
	 * @return whether the annotation is active
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Set whether {@code @AdvisoryLocked} methods take their locks.
	 * @param enabled whether the annotation is active
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Return how long a BLOCK acquisition waits when no timeout is given.
	 * @return the default timeout
	 */
	public Duration getDefaultTimeout() {
		return this.defaultTimeout;
	}

	/**
	 * Set how long a BLOCK acquisition waits when no timeout is given.
	 * @param defaultTimeout the timeout, positive
	 */
	public void setDefaultTimeout(Duration defaultTimeout) {
		Assert.isTrue(LockRequest.isValidTimeout(defaultTimeout), () -> "advisory-lock.default-timeout must be positive "
				+ "and at most " + LockRequest.MAX_TIMEOUT.toMillis() + "ms (0 would wait forever), was " + defaultTimeout);
		this.defaultTimeout = defaultTimeout;
	}

	/**
	 * Return the most distinct keys one call may lock.
	 * @return the limit
	 */
	public int getMaxKeys() {
		return this.maxKeys;
	}

	/**
	 * Set the most distinct keys one call may lock.
	 * @param maxKeys the limit, positive
	 */
	public void setMaxKeys(int maxKeys) {
		Assert.isTrue(maxKeys > 0, () -> "advisory-lock.max-keys must be positive, was " + maxKeys);
		this.maxKeys = maxKeys;
	}

}
