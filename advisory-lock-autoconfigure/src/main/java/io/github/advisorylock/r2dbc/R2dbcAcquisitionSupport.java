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

package io.github.advisorylock.r2dbc;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockHolderDiagnosis.Diagnosis;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.LockAcquisitionListeners;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockLifecycle;
import io.github.advisorylock.core.PermitSlots;
import io.micrometer.observation.Observation;
import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Wrapped;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.util.ClassUtils;

/**
 * What both R2DBC executors need beyond the template's settings, as
 * {@code JdbcAcquisitionSupport} on JDBC: the bounded wait, cancelled on the server when
 * its subscriber cancels or the template closes, and the listeners told inside the
 * subscriber's observation.
 *
 * @author advisory-lock authors
 */
final class R2dbcAcquisitionSupport {

	/** The template's log, where users look for a skip. */
	private static final Log logger = LogFactory.getLog(R2dbcAdvisoryLockTemplate.class);

	/**
	 * The observation's Reactor context key, copied from Micrometer's
	 * {@code ObservationThreadLocalAccessor}, which needs context-propagation.
	 */
	private static final String OBSERVATION_KEY = "micrometer.observation";

	private static final boolean OBSERVATION_PRESENT = ClassUtils.isPresent("io.micrometer.observation.Observation",
			R2dbcAcquisitionSupport.class.getClassLoader());

	private final LockLifecycle lifecycle;

	private boolean holderDiagnosis = true;

	R2dbcAcquisitionSupport(LockLifecycle lifecycle) {
		this.lifecycle = lifecycle;
	}

	void setHolderDiagnosis(boolean holderDiagnosis) {
		this.holderDiagnosis = holderDiagnosis;
	}

	/**
	 * Tell the listeners that an acquisition starts, inside the subscriber's observation
	 * from its Reactor context: a reactive thread carries no current one, and the lock's
	 * observation must be a child of the request's, for a trace to show it in its span.
	 * @param slots the keys of its limit's permits, or {@code null} for a plain lock
	 */
	static Acquisition starting(LockAcquisitionListeners listeners, LockRequest request, LockKeys keys,
			@Nullable PermitSlots slots, ContextView context) {
		Object observation = OBSERVATION_PRESENT ? context.getOrDefault(OBSERVATION_KEY, null) : null;
		if (observation != null) {
			return Observations.inScopeOf(observation, () -> listeners.starting(request, keys, slots));
		}
		return listeners.starting(request, keys, slots);
	}

	/**
	 * Signal the exception of a lock not acquired, naming holders if the diagnosis is on.
	 * @param holderHint what the library knows of the holder, or {@code null}
	 */
	<T> Mono<T> busyError(LockRequest request, LockKeys keys, @Nullable Duration timeout, @Nullable Throwable cause,
			Supplier<Mono<Diagnosis>> diagnose, @Nullable String holderHint) {
		Mono<@Nullable Diagnosis> diagnosis = this.holderDiagnosis ? diagnose.get() : Mono.empty();
		return diagnosis
			.map((found) -> LockFailures.busyException(request.namespace(), keys, timeout, cause, found, holderHint))
			.defaultIfEmpty(LockFailures.busyException(request.namespace(), keys, timeout, cause, null, holderHint))
			.flatMap(Mono::error);
	}

	/** Tell the template's DEBUG log that a {@code SKIP} found a key held. */
	void logSkipped(LockRequest request, LockKeys keys) {
		LockFailures.logSkipped(logger, request, keys);
	}

	/**
	 * Wait for the key a try found held and those after it, within the timeout.
	 * @param ofTransaction whether the connection is a transaction's, lent by a pool;
	 * else a lock session's own
	 */
	Mono<LockAttempt> waitFor(Connection connection, LockRequest request, LockKeys keys, long busyKey, Duration timeout,
			boolean ofTransaction) {
		return cancellable(connection, ofTransaction,
				R2dbcLockStatements.waitLock(connection, request.mode(), keys.waitedFor(busyKey), timeout,
						request.namespace()))
			.filter((ran) -> ran)
			.map((ran) -> LockAttempt.ACQUIRED)
			.onErrorResume(R2dbcExceptions::isLockTimeout, (ex) -> Mono.just(LockAttempt.afterWait(busyKey, ex)))
			.onErrorMap((ex) -> translateLockFailure(ex, request, keys))
			// Empty only where the wait ran on a standby; outside the translation, as the
			// refusal is the library's, not the driver's.
			.switchIfEmpty(Mono.error(() -> LockFailures.recoveryRefusal(request)));
	}

	/**
	 * Wait for the one key of a request without a try first, within the timeout,
	 * cancelled as {@link #waitFor} is.
	 * @return the attempt: acquired, or timed out; a {@code LockTransactionException}
	 * where a lock is not allowed, which took nothing
	 */
	Mono<LockAttempt> waitOne(Connection connection, LockRequest request, LockKeys keys, Duration timeout) {
		long key = keys.keys().get(0);
		return cancellable(connection, true,
				R2dbcLockStatements.waitOne(connection, request.mode(), key, timeout, request.namespace()))
			.filter((allowed) -> allowed)
			.map((allowed) -> LockAttempt.ACQUIRED)
			.onErrorResume(R2dbcExceptions::isLockTimeout, (ex) -> Mono.just(LockAttempt.afterWait(key, ex)))
			.onErrorMap((ex) -> translateLockFailure(ex, request, keys))
			.switchIfEmpty(Mono.defer(() -> explainRefusal(connection, request)));
	}

	/**
	 * Run one slice of a limit's wait, cancelled as {@link #waitFor} is.
	 * @return the slot taken; empty when the slice ran out of time; a
	 * {@code LockTransactionException} if it ran on a standby, which took nothing
	 */
	Mono<Long> waitPermitSlice(Connection connection, LockRequest request, PermitSlots slots, boolean resumed,
			Duration slice, int waited, boolean ofTransaction) {
		return cancellable(connection, ofTransaction,
				R2dbcLockStatements.waitPermitSlice(connection, slots.slots(), resumed, slice, waited,
						request.namespace()))
			.onErrorResume(R2dbcExceptions::isLockTimeout, (ex) -> Mono.empty())
			.onErrorMap((ex) -> translateLockFailure(ex, request, slots.all()))
			.flatMap((slot) -> slot.map(Mono::just).orElseGet(() -> Mono.error(LockFailures.recoveryRefusal(request))));
	}

	/**
	 * Return a wait that the template's close, or its subscriber's cancel, cancels on the
	 * server with a cancel request: the driver only stops reading, and the server would
	 * go on waiting and hold the lock once granted (docs/decisions.md, "The reactive
	 * stack"). A transaction's end awaits the request ({@link R2dbcWaitCancels}); a lock
	 * session's close awaits its own.
	 */
	private <T> Mono<T> cancellable(Connection connection, boolean ofTransaction, Mono<T> wait) {
		Mono<R2dbcWaitCancels> awaiting = ofTransaction ? R2dbcWaitCancels.ofCurrentTransaction()
				: Mono.just(R2dbcWaitCancels.UNAWAITED);
		return awaiting.flatMap((cancels) -> {
			// Unwrapped now: a pool's connection may let go of the driver's once its
			// subscriber cancelled, and the request needs the server session's key.
			PostgresqlConnection target = postgresConnection(connection);
			// From the statement's first request to its end: a wait cancelled as it is
			// subscribed sent nothing, and a request could only reach what runs after.
			AtomicBoolean waiting = new AtomicBoolean();
			Runnable cancel = () -> {
				if (target != null && waiting.get()) {
					cancels.send(target);
				}
			};
			Runnable ended = this.lifecycle.whileWaiting(cancel);
			return wait.doOnRequest((requested) -> waiting.set(true))
				.doOnTerminate(() -> waiting.set(false))
				.doFinally((signal) -> ended.run())
				.doOnCancel(cancel);
		});
	}

	/**
	 * Return the driver's connection under a pool's or a proxy's, which Spring's
	 * {@code ConnectionFactoryUtils.getTargetConnection} unwraps past, to {@code null}.
	 */
	static @Nullable PostgresqlConnection postgresConnection(Connection connection) {
		Object each = connection;
		while (!(each instanceof PostgresqlConnection) && each instanceof Wrapped<?> wrapped) {
			each = wrapped.unwrap();
		}
		return (each instanceof PostgresqlConnection postgres) ? postgres : null;
	}

	/** Signal why a try was refused: the isolation level, or a server in recovery. */
	static <T> Mono<T> explainRefusal(Connection connection, LockRequest request) {
		return R2dbcLockStatements.readRefusalReason(connection)
			.map((refusal) -> LockFailures.refusal(request, refusal))
			.onErrorResume((ex) -> Mono.just(LockFailures.unexplainedRefusal(request, ex)))
			.flatMap(Mono::error);
	}

	static Throwable translateLockFailure(Throwable ex, LockRequest request, LockKeys keys) {
		return R2dbcExceptions.translate(LockFailures.task(request, keys), null, ex);
	}

	/** Opens an observation's scope; its own class, so that Micrometer stays optional. */
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
