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
 * What a fencing token costs, as the full run measures it in section 7: an
 * invocation-scoped call that asks {@code handle.fencingToken()} against one that does
 * not, in pairs, and the server's transaction ids and WAL bytes per call. It prints its
 * table and writes nothing:
 * {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pbenchmarks -Dbenchmarks.main=io.github.advisorylock.benchmarks.FencingTokenBenchmark}.
 */
public final class FencingTokenBenchmark {

	private FencingTokenBenchmark() {
	}

	/**
	 * Measure and print the table.
	 * @param args none
	 */
	public static void main(String[] args) throws Exception {
		Benchmarks.tokenOnly();
	}

}
