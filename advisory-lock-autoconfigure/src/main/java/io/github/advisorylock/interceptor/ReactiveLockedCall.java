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

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.interceptor.AdvisoryLockAspectSupport.Invocation;
import io.github.advisorylock.interceptor.ReturnedWork.ReactiveReturn;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.Assert;

/**
 * The call of a reactive {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked}
 * method: a publisher that, at each subscription, takes the lock in the subscriber's
 * reactive transaction, then calls the method. Apart from
 * {@link AdvisoryLockAspectSupport} so that an application without Reactor never loads a
 * Reactor type.
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
	 * @param returned what the method returns to the lock's advice
	 * @param returnType the method's declared return type
	 * @param invocation proceeds to the method, once per subscription
	 * @return the publisher, or the flow, to return to the caller
	 */
	static Object locked(ReactiveAdvisoryLockOperations operations, LockRequest request, ReactiveReturn returned,
			Class<?> returnType, Invocation invocation) {
		@Nullable ReactiveAdapter flow = (returned == ReactiveReturn.FLOW) ? flowAdapter(returnType) : null;
		Flux<Object> locked = operations.execute(request, (handle) -> {
			try {
				return proceed(invocation, flow);
			}
			catch (Throwable ex) {
				return Flux.error(ex);
			}
		});
		if (flow != null) {
			return flow.fromPublisher(locked);
		}
		return (returned == ReactiveReturn.MONO) ? locked.singleOrEmpty() : locked;
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> proceed(Invocation invocation, @Nullable ReactiveAdapter flow) throws Throwable {
		// A null publisher or flow is an empty one.
		Object returned = invocation.proceed();
		if (returned == null) {
			return Flux.empty();
		}
		return (flow != null) ? flow.toPublisher(returned) : (Publisher<Object>) returned;
	}

	/**
	 * Return Spring's {@code Flow} adapter, registered where
	 * {@code kotlinx-coroutines-reactor} is present, as the startup check made sure.
	 */
	private static ReactiveAdapter flowAdapter(Class<?> flowType) {
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(flowType);
		Assert.state(adapter != null, () -> "No ReactiveAdapter for " + flowType.getName()
				+ ": add org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
		return adapter;
	}

}
