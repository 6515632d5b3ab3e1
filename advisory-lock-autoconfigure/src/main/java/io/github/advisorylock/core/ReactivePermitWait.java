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

package io.github.advisorylock.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;

/**
 * The non-blocking wait for any permit of a limit, slice after slice
 * ({@link PermitSlots}), in both reactive scopes: a repeat, not a recursion, so that a
 * long wait builds no chain of operators. Apart from {@link PermitSlots} so that the
 * blocking stack never loads Reactor.
 *
 * @author advisory-lock authors
 */
public final class ReactivePermitWait {

	private ReactivePermitWait() {
	}

	/**
	 * Wait for any permit until the timeout.
	 * @param slots the limit's permits
	 * @param timeout how long to wait in all
	 * @param slice sends one slice of the wait
	 * @param end ends a wait that ran out of time, leaving the transaction usable
	 * @return the attempt, with the slot taken or, when none was, every slot
	 */
	public static Mono<KeyedAttempt> waitInSlices(PermitSlots slots, Duration timeout, Slice slice,
			Supplier<Mono<Void>> end) {
		return Mono.defer(() -> {
			long deadline = System.nanoTime() + timeout.toNanos();
			AtomicBoolean resumed = new AtomicBoolean();
			return Mono.defer(() -> {
				Duration length = slots.nextSlice(deadline, resumed.get());
				if (length == null) {
					return end.get().thenReturn(slots.timedOut());
				}
				return slice.waitFor(resumed.get(), length, slots.chooseWaited())
					.map(slots::acquired)
					.doOnSuccess((taken) -> resumed.set(true));
			}).repeatWhenEmpty((emptySlices) -> emptySlices);
		});
	}

	/** One slice of a non-blocking wait for any permit. */
	@FunctionalInterface
	public interface Slice {

		/**
		 * Try every slot, then wait for one for at most the slice.
		 * @param resumed whether a slice that ran out of time came before
		 * @param slice how long to wait for the chosen slot
		 * @param waited the index of the slot to wait for, from 1
		 * @return the slot taken; empty when the slice ran out of time
		 */
		Mono<Long> waitFor(boolean resumed, Duration slice, int waited);

	}

}
