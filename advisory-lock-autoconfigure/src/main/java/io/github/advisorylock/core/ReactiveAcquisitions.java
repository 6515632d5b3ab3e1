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
import java.util.function.Supplier;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockHolderDiagnosis.Diagnosis;
import io.github.advisorylock.LockRequest;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.util.ClassUtils;

/**
 * What an acquisition on the reactive stack needs beyond its settings: the listeners told
 * inside the subscriber's observation, and the errors of a lock not acquired or refused,
 * as publishers. A thread of the reactive stack carries no current observation, so the
 * subscriber's one (which Spring's WebFlux and Micrometer keep in the Reactor context) is
 * made current while the listeners hear an acquisition start: the lock's observation is
 * then a child of the request's, and a trace shows the lock inside the request's span.
 * Loaded only for reactive calls. Internal: used by the driver adapters, not API.
 *
 * @author advisory-lock authors
 */
public final class ReactiveAcquisitions {

	/**
	 * The Reactor context key of the current observation, as Micrometer's
	 * {@code ObservationThreadLocalAccessor} names it (named here, since that class needs
	 * the context-propagation library).
	 */
	private static final String OBSERVATION_KEY = "micrometer.observation";

	private static final boolean OBSERVATION_PRESENT = ClassUtils.isPresent("io.micrometer.observation.Observation",
			ReactiveAcquisitions.class.getClassLoader());

	private ReactiveAcquisitions() {
	}

	/**
	 * Tell the listeners that an acquisition starts, as one of a concurrency limit when
	 * it is one, inside the subscriber's current observation, if any.
	 * @param listeners the template's listeners
	 * @param request the request
	 * @param keys the keys it takes now
	 * @param slots the keys of its limit's permits, or {@code null} for a plain lock
	 * @param context the subscriber's context
	 * @return what to tell them the permit taken and how it ended
	 */
	public static Acquisition starting(LockAcquisitionListeners listeners, LockRequest request, LockKeys keys,
			@Nullable PermitSlots slots, ContextView context) {
		Object observation = OBSERVATION_PRESENT ? context.getOrDefault(OBSERVATION_KEY, null) : null;
		if (observation != null) {
			return Observations.inScopeOf(observation, () -> listeners.starting(request, keys, slots));
		}
		return listeners.starting(request, keys, slots);
	}

	/**
	 * Signal the exception of a lock not acquired, naming its holders where the diagnosis
	 * is on, and ending with what the library knows of the holder.
	 * @param <T> the type of the publisher that fails
	 * @param holderDiagnosis whether to ask who holds the keys
	 * @param request the request
	 * @param keys its keys
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @param cause the driver's report of the timeout, or {@code null}
	 * @param diagnose asks who holds the keys, on the failure path only
	 * @param holderHint the end of the message, or {@code null}
	 * @return the error
	 */
	public static <T> Mono<T> busyError(boolean holderDiagnosis, LockRequest request, LockKeys keys,
			@Nullable Duration timeout, @Nullable Throwable cause, Supplier<Mono<Diagnosis>> diagnose,
			@Nullable String holderHint) {
		Mono<@Nullable Diagnosis> diagnosis = holderDiagnosis ? diagnose.get() : Mono.empty();
		return diagnosis
			.map((found) -> LockFailures.busyException(request.namespace(), keys, timeout, cause, found, holderHint))
			.defaultIfEmpty(LockFailures.busyException(request.namespace(), keys, timeout, cause, null, holderHint))
			.flatMap(Mono::error);
	}

	/**
	 * Signal the refusal of a lock whose try's check refused it, naming the condition
	 * that failed, or that reading it failed too.
	 * @param <T> the type of the publisher that fails
	 * @param request the call
	 * @param reason reads the condition, on this failure path only
	 * @return the error
	 */
	public static <T> Mono<T> refusal(LockRequest request, Mono<LockSql.RefusalReason> reason) {
		return reason.map((refusal) -> LockFailures.refusal(request, refusal))
			.onErrorResume((ex) -> Mono.just(LockFailures.unexplainedRefusal(request, ex)))
			.flatMap(Mono::error);
	}

	/**
	 * Opens the scope of an observation; a class of its own, so that Micrometer is loaded
	 * only when present.
	 */
	private static final class Observations {

		static Acquisition inScopeOf(Object observation, Supplier<Acquisition> starting) {
			if (!(observation instanceof Observation current)) {
				return starting.get();
			}
			try (Observation.Scope scope = current.openScope()) {
				return starting.get();
			}
		}

	}

}
