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
 * Settings of the job that writes batches under fenced writes ({@link FencedBatchJob}),
 * which is off unless {@code sample.jobs.fenced-batches.enabled} is {@code true}.
 *
 * @param period how often each instance tries the job, this long after its last try ended
 * @param batches how many batches one run writes, each in a transaction of its own
 * @param batchSize how many rows one batch writes
 * @param pause how long each batch waits between its insert and its commit, to show a
 * write in flight (demos and tests); none by default
 * @param archiveUrl the JDBC URL, credentials as its parameters, of a database outside
 * the lock's that records each batch only with a fencing token no lower than it has
 * accepted ({@link FencedArchive}); none by default
 */
@ConfigurationProperties("sample.jobs.fenced-batches")
public record FencedBatchJobProperties(@DefaultValue(FencedBatchJobProperties.DEFAULT_PERIOD) Duration period,
		@DefaultValue("5") int batches, @DefaultValue("10") int batchSize, @DefaultValue("0s") Duration pause,
		@DefaultValue("") String archiveUrl) {

	/** The default period, which the job's {@code @Scheduled} falls back to as well. */
	public static final String DEFAULT_PERIOD = "10s";

	/**
	 * Check the settings.
	 */
	public FencedBatchJobProperties {
		if (period.isNegative() || period.isZero()) {
			throw new IllegalArgumentException("sample.jobs.fenced-batches.period must be positive, got " + period);
		}
		if (batches < 1) {
			throw new IllegalArgumentException("sample.jobs.fenced-batches.batches must be at least 1, got " + batches);
		}
		if (batchSize < 1) {
			throw new IllegalArgumentException(
					"sample.jobs.fenced-batches.batch-size must be at least 1, got " + batchSize);
		}
		if (pause.isNegative()) {
			throw new IllegalArgumentException("sample.jobs.fenced-batches.pause must not be negative, got " + pause);
		}
	}

}
