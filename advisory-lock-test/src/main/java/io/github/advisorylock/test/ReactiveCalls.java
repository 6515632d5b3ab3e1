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

package io.github.advisorylock.test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The part of a run of concurrent calls that knows Reactor, loaded only where it is on
 * the class path: a call returning a {@code Mono} or {@code Flux} is subscribed to by the
 * kit with its index in the subscriber's context, where the bodies it reaches find it.
 *
 * @author advisory-lock authors
 */
final class ReactiveCalls {

	private static final String CALL = ReactiveCalls.class.getName() + ".call";

	private ReactiveCalls() {
	}

	static boolean isReactive(Class<?> type) {
		return Mono.class.isAssignableFrom(type) || Flux.class.isAssignableFrom(type);
	}

	static boolean isPublisher(@Nullable Object result) {
		return result instanceof Publisher<?>;
	}

	/**
	 * Subscribe to what a call returned, as the call's index, and wait for its end.
	 * @param call the index
	 * @param result the call's {@code Mono} or {@code Flux}
	 * @param timeout how long to wait at most
	 * @return the {@code Mono}'s value, or the {@code Flux}'s values
	 */
	static @Nullable Object block(int call, Object result, Duration timeout) {
		if (result instanceof Mono<?> mono) {
			return mono.contextWrite(Context.of(CALL, call)).block(timeout);
		}
		List<?> values = Flux.from((Publisher<?>) result)
			.contextWrite(Context.of(CALL, call))
			.collectList()
			.block(timeout);
		return values;
	}

	/**
	 * Watch the body of a reactive method: from the subscription to its publisher to its
	 * end (its last signal, before the enclosing transaction commits and releases the
	 * lock) or its cancellation, for the call in the subscriber's context.
	 */
	@SuppressWarnings("unchecked")
	static @Nullable Object watch(@Nullable Object result, LockedBodies.Run run, Method method) {
		if (result instanceof Mono<?>) {
			Mono<Object> mono = (Mono<Object>) result;
			return Mono.deferContextual((context) -> context.<Integer>getOrEmpty(CALL)
				.map((call) -> mono.doOnSubscribe((subscription) -> run.enter(call, method))
					.doOnTerminate(() -> run.exit(call))
					.doOnCancel(() -> run.exit(call)))
				.orElse(mono));
		}
		if (result instanceof Flux<?>) {
			Flux<Object> flux = (Flux<Object>) result;
			return Flux.deferContextual((context) -> context.<Integer>getOrEmpty(CALL)
				.map((call) -> flux.doOnSubscribe((subscription) -> run.enter(call, method))
					.doOnTerminate(() -> run.exit(call))
					.doOnCancel(() -> run.exit(call)))
				.orElse(flux));
		}
		return result;
	}

}
