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

package io.github.advisorylock.interceptor;

import java.util.function.Function;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.interceptor.AdvisoryLockAspectSupport.Invocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The call of an {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked} method
 * that returns a {@code Mono} or {@code Flux}: it returns at once a publisher that, at
 * each subscription, takes the lock in the subscriber's reactive transaction and only
 * then calls the method and subscribes what it returns. Kept apart from
 * {@link AdvisoryLockAspectSupport}, and loaded only for such a method, so that an
 * application without Reactor never loads a Reactor type.
 *
 * @author advisory-lock authors
 */
final class ReactiveLockedCall {

	private ReactiveLockedCall() {
	}

	/**
	 * Return the method's publisher, locked.
	 * @param operations the reactive lock operations
	 * @param request the request the annotation and the call's keys make
	 * @param returnType the method's declared return type, a {@code Mono} or a
	 * {@code Flux}
	 * @param invocation proceeds to the method, once per subscription
	 * @param inMethod names the method in a key error or a refusal
	 * @return the publisher to return to the caller
	 */
	static Object locked(ReactiveAdvisoryLockOperations operations, LockRequest request, Class<?> returnType,
			Invocation invocation, Function<Throwable, Throwable> inMethod) {
		Flux<Object> locked = operations.execute(request, (handle) -> {
			try {
				return proceed(invocation);
			}
			catch (Throwable ex) {
				return Flux.error(ex);
			}
		}).onErrorMap(inMethod::apply);
		return Mono.class.isAssignableFrom(returnType) ? locked.singleOrEmpty() : locked;
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> proceed(Invocation invocation) throws Throwable {
		// A method declared to return Mono or Flux that returns null returns nothing.
		Object returned = invocation.proceed();
		return (returned != null) ? (Publisher<Object>) returned : Flux.empty();
	}

}
