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
package io.github.advisorylock.sample.chaos;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Waits for a fact of the database or of the client's log, asked again every 20 ms up to
 * a bound: the chaos run synchronizes on what it can observe, never on a fixed pause.
 *
 * @author advisory-lock authors
 */
final class Facts {

	private Facts() {
	}

	/**
	 * Ask for a fact until it is there or the bound has passed. A question that fails
	 * (its connection met a fault of the server) is asked again.
	 * @param bound how long to ask
	 * @param fact the question: a value once the fact holds, empty before
	 * @param <T> what the fact gives
	 * @return the value, or empty when the bound passed first
	 */
	static <T> Optional<T> await(Duration bound, Supplier<Optional<T>> fact) {
		long deadline = System.nanoTime() + bound.toNanos();
		while (System.nanoTime() < deadline) {
			Optional<T> value;
			try {
				value = fact.get();
			}
			catch (RuntimeException ex) {
				value = Optional.empty();
			}
			if (value.isPresent()) {
				return value;
			}
			LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
		}
		return Optional.empty();
	}

}
