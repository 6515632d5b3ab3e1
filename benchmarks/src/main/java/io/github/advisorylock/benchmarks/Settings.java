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

package io.github.advisorylock.benchmarks;

import java.time.Duration;

/**
 * How long and how often to measure, and on what: every duration and count is the full
 * run's, multiplied by a scale (system property {@code benchmarks.scale}, 1 for the
 * published figures, less for a quick look); the embedded server is durable unless
 * {@code benchmarks.durable} is {@code false}.
 *
 * @param scale the multiplier
 * @param durable whether the embedded server flushes each commit to disk, as a production
 * server does
 */
record Settings(double scale, boolean durable) {

	static Settings fromSystemProperties() {
		double scale = Double.parseDouble(System.getProperty("benchmarks.scale", "1"));
		if (!(scale > 0 && scale <= 10)) {
			throw new IllegalArgumentException("benchmarks.scale must be above 0 and at most 10, was " + scale);
		}
		String durable = System.getProperty("benchmarks.durable", "true");
		if (!durable.equals("true") && !durable.equals("false")) {
			throw new IllegalArgumentException("benchmarks.durable must be true or false, was " + durable);
		}
		return new Settings(scale, Boolean.parseBoolean(durable));
	}

	Duration duration(long millis) {
		return Duration.ofMillis(Math.max(50, Math.round(millis * this.scale)));
	}

	int rounds(int rounds) {
		return (int) Math.max(3, Math.round(rounds * Math.min(1, this.scale)));
	}

	int count(int count) {
		return (int) Math.max(5, Math.round(count * this.scale));
	}

}
