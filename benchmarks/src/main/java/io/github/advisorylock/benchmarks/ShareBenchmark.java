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

/**
 * The library's share alone: the annotation's and the programmatic API's cost over the
 * same statement written by hand, in pairs, as the full run measures it. It prints its
 * table and writes nothing, for a change of the lock's path measured before and after,
 * one run right after the other:
 * {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pbenchmarks -Dbenchmarks.main=io.github.advisorylock.benchmarks.ShareBenchmark}.
 */
public final class ShareBenchmark {

	private ShareBenchmark() {
	}

	/**
	 * Measure and print the table.
	 * @param args none
	 */
	public static void main(String[] args) throws Exception {
		Benchmarks.shareOnly();
	}

}
