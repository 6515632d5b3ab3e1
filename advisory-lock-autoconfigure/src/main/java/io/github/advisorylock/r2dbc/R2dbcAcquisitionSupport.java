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
 * What the two scopes' executors over R2DBC need beyond the template's
 * {@link io.github.advisorylock.core.LockSettings}: the bounded wait (cancelled on the
 * server when its subscriber cancels, or the template closes), the listeners told inside
 * the subscriber's observation, the DEBUG line of a skip, and the refusal and failure
 * exceptions of R2DBC, naming the holders where the diagnosis is on. The twin of the JDBC
 * path's {@code JdbcAcquisitionSupport}.
 *
 * @author advisory-lock authors
 */
final class R2dbcAcquisitionSupport {

	/** The template's log, where users look for a skip. */
	private static final Log logger = LogFactory.getLog(R2dbcAdvisoryLockTemplate.class);

	/**
	 * The Reactor context key of the current observation, as Micrometer's
	 * {@code ObservationThreadLocalAccessor} names it (named here, since that class needs
	 * the context-propagation library).
	 */
	private static final String OBSERVATION_KEY = "micrometer.observation";

	private static final boolean OBSERVATION_PRESENT = ClassUtils.isPresent("io.micrometer.observation.Observation",
			R2dbcAcquisitionSupport.class.getClassLoader());

	private final LockLifecycle lifecycle;

	private boolean holderDiagnosis = true;

	R2dbcAcquisitionSupport(LockLifecycle lifecycle) {
		this.lifecycle = lifecycle;
	}

	/**
	 * Set whether a busy error names the sessions holding the lock.
	 * @param holderDiagnosis whether to ask
	 */
	void setHolderDiagnosis(boolean holderDiagnosis) {
		this.holderDiagnosis = holderDiagnosis;
	}

	/**
	 * Tell the listeners that an acquisition starts, as one of a concurrency limit when
	 * it is one, inside the subscriber's current observation, if any. A thread of the
	 * reactive stack carries no current observation, so the subscriber's one (which
	 * Spring's WebFlux and Micrometer keep in the Reactor context) is made current while
	 * the listeners hear the start: the lock's observation is then a child of the
	 * request's, and a trace shows the lock inside the request's span.
	 * @param listeners the template's listeners
	 * @param request the request
	 * @param keys the keys it takes now
	 * @param slots the keys of its limit's permits, or {@code null} for a plain lock
	 * @param context the subscriber's context
	 * @return what to tell them the permit taken and how it ended
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
	 * Signal the exception of a lock not acquired, naming its holders where the diagnosis
	 * is on, and ending with what the library knows of the holder.
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @param cause the driver's report of the timeout, or {@code null}
	 * @param diagnose asks who holds the keys, on the failure path only
	 * @param holderHint the end of the message, or {@code null}
	 */
	<T> Mono<T> busyError(LockRequest request, LockKeys keys, @Nullable Duration timeout, @Nullable Throwable cause,
			Supplier<Mono<Diagnosis>> diagnose, @Nullable String holderHint) {
		Mono<@Nullable Diagnosis> diagnosis = this.holderDiagnosis ? diagnose.get() : Mono.empty();
		return diagnosis
			.map((found) -> LockFailures.busyException(request.namespace(), keys, timeout, cause, found, holderHint))
			.defaultIfEmpty(LockFailures.busyException(request.namespace(), keys, timeout, cause, null, holderHint))
			.flatMap(Mono::error);
	}

	/**
	 * Tell the template's DEBUG log that a {@code SKIP} found a key held.
	 */
	void logSkipped(LockRequest request, LockKeys keys) {
		LockFailures.logSkipped(logger, request, keys);
	}

	/**
	 * Wait for the key a try found held and those after it, within the call's timeout.
	 * @param timeout the request's timeout, or the template's default
	 * @param ofTransaction whether the connection is a transaction's, lent by a pool;
	 * else a lock session's own
	 * @return the attempt: acquired, or timed out with the driver's report
	 */
	Mono<LockAttempt> waitFor(Connection connection, LockRequest request, LockKeys keys, long busyKey, Duration timeout,
			boolean ofTransaction) {
		return cancellable(connection, ofTransaction,
				R2dbcLockStatements
					.waitLock(connection, request.mode(), keys.waitedFor(busyKey), timeout, request.namespace())
					.thenReturn(LockAttempt.ACQUIRED))
			.onErrorResume(R2dbcExceptions::isLockTimeout, (ex) -> Mono.just(LockAttempt.afterWait(busyKey, ex)))
			.onErrorMap((ex) -> translateLockFailure(ex, request, keys));
	}

	/**
	 * Run one slice of a limit's wait, cancelled on the server as {@link #waitFor} is.
	 * @param ofTransaction whether the connection is a transaction's, lent by a pool;
	 * else a lock session's own
	 * @return the slot taken; empty when the slice ran out of time
	 */
	Mono<Long> waitPermitSlice(Connection connection, LockRequest request, PermitSlots slots, boolean resumed,
			Duration slice, int waited, boolean ofTransaction) {
		return cancellable(connection, ofTransaction,
				R2dbcLockStatements.waitPermitSlice(connection, slots.slots(), resumed, slice, waited,
						request.namespace()))
			.onErrorResume(R2dbcExceptions::isLockTimeout, (ex) -> Mono.empty())
			.onErrorMap((ex) -> translateLockFailure(ex, request, slots.all()));
	}

	/**
	 * Return a wait that the template's close, or its subscriber's cancel, cancels on the
	 * server while it runs. The driver stops reading at a cancel, but the server would go
	 * on waiting and, once granted, hold the lock until the rollback queued behind the
	 * wait: so PostgreSQL is sent a cancel request for the statement the session runs, on
	 * a connection of its own, as {@code pg_cancel_backend} would. The wait fails, its
	 * transaction is aborted, and the rollback Spring sends for the cancelled subscriber
	 * ends it, once the request was answered ({@link R2dbcWaitCancels}). A lock session's
	 * own connection needs no more: its close awaits its cancel.
	 * @param connection the connection the wait runs on
	 * @param ofTransaction whether the connection is a transaction's
	 * @param wait the wait
	 */
	private <T> Mono<T> cancellable(Connection connection, boolean ofTransaction, Mono<T> wait) {
		Mono<R2dbcWaitCancels> awaiting = ofTransaction ? R2dbcWaitCancels.ofCurrentTransaction()
				: Mono.just(R2dbcWaitCancels.UNAWAITED);
		return awaiting.flatMap((cancels) -> {
			// Unwrapped now: a pool's connection may let go of the driver's once its
			// subscriber cancelled, and the cancel request needs the server session's
			// key.
			PostgresqlConnection target = postgresConnection(connection);
			// Waiting from the statement's first request to its end: a wait cancelled
			// as it is subscribed (its subscriber gone meanwhile) sent nothing to
			// cancel, and a request for it could only reach what runs after.
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
	 * Return the driver's connection under a pool's or a proxy's. (Spring's
	 * {@code ConnectionFactoryUtils.getTargetConnection} unwraps past it, to
	 * {@code null}.)
	 */
	static @Nullable PostgresqlConnection postgresConnection(Connection connection) {
		Object each = connection;
		while (!(each instanceof PostgresqlConnection) && each instanceof Wrapped<?> wrapped) {
			each = wrapped.unwrap();
		}
		return (each instanceof PostgresqlConnection postgres) ? postgres : null;
	}

	/**
	 * Explain a refused try: the isolation level, or a server in recovery.
	 * @return the refusal, signalled
	 */
	static <T> Mono<T> explainRefusal(Connection connection, LockRequest request) {
		return R2dbcLockStatements.readRefusalReason(connection)
			.map((refusal) -> LockFailures.refusal(request, refusal))
			.onErrorResume((ex) -> Mono.just(LockFailures.unexplainedRefusal(request, ex)))
			.flatMap(Mono::error);
	}

	static Throwable translateLockFailure(Throwable ex, LockRequest request, LockKeys keys) {
		return R2dbcExceptions.translate(LockFailures.task(request, keys), null, ex);
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
