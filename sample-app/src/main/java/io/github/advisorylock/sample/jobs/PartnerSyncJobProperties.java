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
 * Settings of the job that syncs the partner's feed ({@link PartnerFeedSync}), which is
 * off unless {@code sample.jobs.partner-sync.enabled} is {@code true}. How many instances
 * may run it at once is {@code sample.jobs.partner-sync.permits} (2), read by the job's
 * annotation.
 *
 * @param period how often each instance tries the job, this long after its last try ended
 * @param workTime how long a run's call to the partner takes (simulated)
 */
@ConfigurationProperties("sample.jobs.partner-sync")
public record PartnerSyncJobProperties(@DefaultValue(PartnerSyncJobProperties.DEFAULT_PERIOD) Duration period,
		@DefaultValue("3s") Duration workTime) {

	/** The default period, which the job's {@code @Scheduled} falls back to as well. */
	public static final String DEFAULT_PERIOD = "2s";

	/**
	 * Check the settings.
	 */
	public PartnerSyncJobProperties {
		if (period.isNegative() || period.isZero()) {
			throw new IllegalArgumentException("sample.jobs.partner-sync.period must be positive, got " + period);
		}
		if (workTime.isNegative()) {
			throw new IllegalArgumentException(
					"sample.jobs.partner-sync.work-time must not be negative, got " + workTime);
		}
	}

}
