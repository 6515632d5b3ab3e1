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

import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.Assert;

/**
 * Fails the startup of an application whose advisory locks exclude nobody, once every
 * singleton exists: each template checks its sources
 * ({@link AdvisoryLockTemplate#checkExclusion}), within
 * {@code advisory-lock.startup-check.timeout} each. Registered unless
 * {@code advisory-lock.startup-check.enabled} is {@code false}, one for each stack.
 *
 * @author advisory-lock authors
 */
final class StartupExclusionCheck implements SmartInitializingSingleton {

	private final Runnable check;

	private StartupExclusionCheck(Runnable check) {
		this.check = check;
	}

	static StartupExclusionCheck jdbc(ObjectProvider<AdvisoryLockTemplate> templates, Duration timeout) {
		checkTimeout(timeout);
		return new StartupExclusionCheck(
				() -> templates.orderedStream().forEach((template) -> template.checkExclusion(timeout)));
	}

	static StartupExclusionCheck r2dbc(ObjectProvider<R2dbcAdvisoryLockTemplate> templates, Duration timeout) {
		checkTimeout(timeout);
		// Each check is bounded by the timeout, so the block is too.
		return new StartupExclusionCheck(
				() -> templates.orderedStream().forEach((template) -> template.checkExclusion(timeout).block()));
	}

	private static void checkTimeout(Duration timeout) {
		Assert.isTrue(timeout.compareTo(Duration.ZERO) > 0,
				() -> "advisory-lock.startup-check.timeout must be positive, was " + timeout);
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.check.run();
	}

}
