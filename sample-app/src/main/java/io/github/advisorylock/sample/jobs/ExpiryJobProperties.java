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

package io.github.advisorylock.sample.jobs;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the job that expires stale setup requests ({@link StaleRequestExpiry}).
 *
 * @param period how often the job runs: each instance tries it this long after its last
 * try ended, and at most one run starts in any period across all instances
 * @param maxAge how long a request may stay pending before the job expires it
 * @param workTime how long each run works on top of its update, to show a long-running
 * job (demos and tests); none by default
 */
@ConfigurationProperties("sample.jobs.expiry")
public record ExpiryJobProperties(@DefaultValue(ExpiryJobProperties.DEFAULT_PERIOD) Duration period,
		@DefaultValue("1h") Duration maxAge, @DefaultValue("0s") Duration workTime) {

	/** The default period, which the job's {@code @Scheduled} falls back to as well. */
	public static final String DEFAULT_PERIOD = "5s";

	/**
	 * Check the settings.
	 */
	public ExpiryJobProperties {
		if (period.isNegative() || period.isZero()) {
			throw new IllegalArgumentException("sample.jobs.expiry.period must be positive, got " + period);
		}
		if (maxAge.isNegative()) {
			throw new IllegalArgumentException("sample.jobs.expiry.max-age must not be negative, got " + maxAge);
		}
		if (workTime.isNegative()) {
			throw new IllegalArgumentException("sample.jobs.expiry.work-time must not be negative, got " + workTime);
		}
	}

}
