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

import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.FencedKeys;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockSql.TryResult;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.ReactiveLockStatements;
import io.github.advisorylock.r2dbc.LockConnectionFactories.BoundConnection;
import io.r2dbc.spi.Connection;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The statements of a transaction-scoped lock on the R2DBC connection of the subscriber's
 * reactive transaction: {@link R2dbcLockStatements}' try and wait, with their failures
 * translated and a refusal explained.
 *
 * @author advisory-lock authors
 */
final class TransactionLockStatements implements ReactiveLockStatements<BoundConnection> {

	private final LockConnectionFactories factories;

	private final AcquisitionSupport support;

	TransactionLockStatements(LockConnectionFactories factories, AcquisitionSupport support) {
		this.factories = factories;
		this.support = support;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The keys a {@code SKIP} of several keys took before the one found held are given
	 * back with a savepoint around the try, rolled back then.
	 */
	@Override
	public Mono<Long> tryLock(BoundConnection bound, LockRequest request, LockKeys keys) {
		Connection connection = bound.connection();
		Mono<TryResult> tried = R2dbcLockStatements.tryLock(connection, request.mode(), keys.keys(),
				request.namespace());
		if (request.waitMode() == WaitMode.SKIP && keys.keys().size() > 1) {
			String savepoint = "advisory_lock_skip";
			tried = Mono.from(connection.createSavepoint(savepoint))
				.then(tried)
				.flatMap((result) -> ((result.busyKey() != null)
						? Mono.from(connection.rollbackTransactionToSavepoint(savepoint)) : Mono.<Void>empty())
					.then(Mono.from(connection.releaseSavepoint(savepoint)))
					.thenReturn(result));
		}
		return tried.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, keys))
			.flatMap((result) -> {
				if (!result.lockable()) {
					return AcquisitionSupport.explainRefusal(connection, request);
				}
				return Mono.justOrEmpty(result.busyKey());
			});
	}

	@Override
	public Mono<LockAttempt> waitLock(BoundConnection bound, LockRequest request, LockKeys keys, long busyKey) {
		return this.support.waitFor(bound.connection(), request, keys, busyKey, true);
	}

	@Override
	public Mono<Long> tryPermit(BoundConnection bound, LockRequest request, PermitSlots slots) {
		return R2dbcLockStatements.tryPermit(bound.connection(), slots.slots(), request.namespace())
			.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, slots.all()))
			.flatMap((tried) -> tried.lockable() ? Mono.justOrEmpty(tried.slot())
					: AcquisitionSupport.explainRefusal(bound.connection(), request));
	}

	@Override
	public Mono<Long> waitPermitSlice(BoundConnection bound, LockRequest request, PermitSlots slots, boolean resumed,
			Duration slice, int waited) {
		return this.support.waitPermitSlice(bound.connection(), request, slots, resumed, slice, waited, true);
	}

	@Override
	public Mono<Void> endPermitWait(BoundConnection bound, LockRequest request, PermitSlots slots) {
		return R2dbcLockStatements.endPermitWait(bound.connection())
			.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, slots.all()));
	}

	@Override
	public Mono<Long> fence(BoundConnection bound, LockRequest request, FencedKeys fenced) {
		return Flux.fromIterable(fenced.sessions())
			.concatMap((held) -> ((LockSession) held).marker())
			.collectList()
			.flatMap((markers) -> R2dbcLockStatements
				.fence(bound.connection(), fenced.keys().keys(), markers, fenced.idleTimeout(), request)
				.onErrorMap((ex) -> AcquisitionSupport.translateLockFailure(ex, request, fenced.keys())))
			.flatMap((result) -> result.lockable() ? Mono.justOrEmpty(result.lostKey())
					: AcquisitionSupport.explainRefusal(bound.connection(), request));
	}

	@Override
	public <T> Mono<T> busyError(BoundConnection bound, LockRequest request, LockKeys keys, LockAttempt attempt,
			@Nullable Duration timeout, @Nullable String holderHint) {
		long busyKey = attempt.foundHeld();
		if (attempt.outcome() == Outcome.TIMEOUT) {
			return this.support.busyError(
					request, keys, timeout, attempt.timedOut(), () -> HolderDiagnosis
						.afterTimeout(this.factories.driver(bound.factory()), keys.waitedFor(busyKey), request.mode()),
					holderHint);
		}
		List<Long> held = attempt.foundHeld(request, keys);
		return this.support.busyError(request, keys, null, null,
				() -> HolderDiagnosis.onConnection(bound.connection(), held, request.mode()), holderHint);
	}

}
