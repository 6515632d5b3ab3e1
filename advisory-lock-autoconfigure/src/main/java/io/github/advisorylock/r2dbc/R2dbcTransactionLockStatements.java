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
import java.util.List;
import java.util.Optional;

import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.plan.FencedKeys;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.LockSql.TryResult;
import io.github.advisorylock.core.sql.PermitSql;
import io.github.advisorylock.core.sql.PermitSql.PermitTry;
import io.github.advisorylock.r2dbc.R2dbcConnectionFactories.BoundConnection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Statement;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The statements of a transaction-scoped lock on the subscriber's R2DBC connection, as
 * {@code JdbcTransactionLockStatements} on JDBC.
 *
 * @author advisory-lock authors
 */
final class R2dbcTransactionLockStatements {

	private final R2dbcConnectionFactories factories;

	private final R2dbcAcquisitionSupport support;

	R2dbcTransactionLockStatements(R2dbcConnectionFactories factories, R2dbcAcquisitionSupport support) {
		this.factories = factories;
		this.support = support;
	}

	/**
	 * Try every key, in order, with a savepoint around a {@code SKIP} of several.
	 * @return the first key found held; empty when every one was taken
	 */
	Mono<Long> tryLock(BoundConnection bound, LockRequest request, LockKeys keys) {
		Connection connection = bound.connection();
		List<Long> ordered = keys.keys();
		Mono<TryResult> tried = Mono.defer(() -> {
			Statement statement = connection
				.createStatement(LockSql.R2DBC.trySql(request.mode(), ordered.size(), request.namespace()));
			R2dbcLockStatements.bindKeys(statement, 0, ordered, ordered.size() > 1);
			boolean one = ordered.size() == 1;
			// A row per lockable try: for one key whether it was taken, for several the
			// first one found held (NULL, so empty here, when every one was).
			return Flux.from(statement.execute())
				.concatMap((result) -> result.map((row, metadata) -> Optional
					.ofNullable(one ? (Object) row.get(0, Boolean.class) : row.get(0, Long.class))))
				.collectList()
				.map((rows) -> TryResult.read(!rows.isEmpty(), rows.isEmpty() ? null : rows.get(0).orElse(null),
						ordered));
		});
		if (request.waitMode() == WaitMode.SKIP && keys.keys().size() > 1) {
			String savepoint = "advisory_lock_skip";
			tried = Mono.from(connection.createSavepoint(savepoint))
				.then(tried)
				.flatMap((result) -> ((result.busyKey() != null)
						? Mono.from(connection.rollbackTransactionToSavepoint(savepoint)) : Mono.<Void>empty())
					.then(Mono.from(connection.releaseSavepoint(savepoint)))
					.thenReturn(result));
		}
		return tried.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, keys))
			.flatMap((result) -> {
				if (!result.lockable()) {
					return R2dbcAcquisitionSupport.explainRefusal(connection, request);
				}
				return Mono.justOrEmpty(result.busyKey());
			});
	}

	/** Wait for the key found held and those after it, cancellable on the server. */
	Mono<LockAttempt> waitLock(BoundConnection bound, LockRequest request, LockKeys keys, long busyKey,
			Duration timeout) {
		return this.support.waitFor(bound.connection(), request, keys, busyKey, timeout, true);
	}

	/** Wait for the one key of a request at once, cancellable on the server. */
	Mono<LockAttempt> waitOne(BoundConnection bound, LockRequest request, LockKeys keys, Duration timeout) {
		return this.support.waitOne(bound.connection(), request, keys, timeout);
	}

	/**
	 * Take one free permit of a limit, in one statement.
	 * @return the slot taken; empty when every one is held
	 */
	Mono<Long> tryPermit(BoundConnection bound, LockRequest request, PermitSlots slots) {
		List<Long> ordered = slots.slots();
		return Mono.defer(() -> {
			Statement statement = bound.connection()
				.createStatement(PermitSql.R2DBC.trySql(ordered.size(), request.namespace()));
			for (int slot = 0; slot < ordered.size(); slot++) {
				statement.bind(slot, ordered.get(slot));
			}
			return Flux.from(statement.execute())
				.concatMap((result) -> result.map((row, metadata) -> Optional.ofNullable(row.get(0, Integer.class))))
				.collectList()
				.map((rows) -> PermitTry.read(!rows.isEmpty(), rows.isEmpty() ? null : rows.get(0).orElse(null),
						ordered));
		})
			.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, slots.all()))
			.flatMap((tried) -> tried.lockable() ? Mono.justOrEmpty(tried.slot())
					: R2dbcAcquisitionSupport.explainRefusal(bound.connection(), request));
	}

	/**
	 * Run one slice of a limit's wait, cancellable on the server.
	 * @return the slot taken; empty when the slice ran out of time
	 */
	Mono<Long> waitPermitSlice(BoundConnection bound, LockRequest request, PermitSlots slots, boolean resumed,
			Duration slice, int waited) {
		return this.support.waitPermitSlice(bound.connection(), request, slots, resumed, slice, waited, true);
	}

	/** End a limit's wait that ran out of time; the transaction goes on without it. */
	Mono<Void> endPermitWait(BoundConnection bound, LockRequest request, PermitSlots slots) {
		return R2dbcLockStatements.endPermitWait(bound.connection())
			.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, slots.all()));
	}

	/**
	 * Make the transaction a fenced write, in one round trip.
	 * @return the first key whose session no longer holds it; empty when every one does
	 */
	Mono<Long> fence(BoundConnection bound, LockRequest request, FencedKeys fenced) {
		return Flux.fromIterable(fenced.sessions())
			.concatMap((held) -> ((R2dbcLockSession) held).marker())
			.collectList()
			.flatMap((markers) -> R2dbcLockStatements
				.fence(bound.connection(), fenced.keys().keys(), markers, fenced.idleTimeout(), request)
				.onErrorMap((ex) -> R2dbcAcquisitionSupport.translateLockFailure(ex, request, fenced.keys())))
			.flatMap((result) -> result.lockable() ? Mono.justOrEmpty(result.lostKey())
					: R2dbcAcquisitionSupport.explainRefusal(bound.connection(), request));
	}

	/** Signal the exception of a lock not acquired, naming holders if asked to. */
	<T> Mono<T> busyError(BoundConnection bound, LockRequest request, LockKeys keys, LockAttempt attempt,
			@Nullable Duration timeout, @Nullable String holderHint) {
		long busyKey = attempt.foundHeld();
		if (attempt.outcome() == Outcome.TIMEOUT) {
			return this.support.busyError(
					request, keys, timeout, attempt.timedOut(), () -> R2dbcHolderDiagnosis
						.afterTimeout(this.factories.driver(bound.factory()), keys.waitedFor(busyKey), request.mode()),
					holderHint);
		}
		List<Long> held = attempt.foundHeld(request, keys);
		return this.support.busyError(request, keys, null, null,
				() -> R2dbcHolderDiagnosis.onConnection(bound.connection(), held, request.mode()), holderHint);
	}

}
