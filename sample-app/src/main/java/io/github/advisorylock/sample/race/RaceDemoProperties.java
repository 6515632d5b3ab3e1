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

package io.github.advisorylock.sample.race;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the race demo.
 *
 * @param attempts how many attempts race for one user in each variant; the connection
 * pool must have as many connections, so that every attempt runs at once
 * @param thinkTime how long each attempt works between its check and its insert
 * (validating, pricing, calling another service): the window in which a concurrent
 * attempt's check cannot yet see its row
 */
@ConfigurationProperties("race-demo")
public record RaceDemoProperties(@DefaultValue("20") int attempts, @DefaultValue("50ms") Duration thinkTime) {

	/**
	 * Check the settings.
	 */
	public RaceDemoProperties {
		if (attempts < 2) {
			throw new IllegalArgumentException("race-demo.attempts must be at least 2 to race, got " + attempts);
		}
		if (thinkTime.isNegative()) {
			throw new IllegalArgumentException("race-demo.think-time must not be negative, got " + thinkTime);
		}
	}

}
