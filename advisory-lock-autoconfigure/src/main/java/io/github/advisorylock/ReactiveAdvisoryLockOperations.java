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

package io.github.advisorylock;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Programmatic access to transaction-level advisory locks on Spring's reactive stack, for
 * the subscriber's reactive transaction: the twin of {@link AdvisoryLockOperations}, in
 * the style of Spring's {@code TransactionalOperator}.
 *
 * <p>
 * Nothing happens until subscription. Each operation then takes the lock on the R2DBC
 * connection of the reactive transaction in the subscriber's Reactor context (begun by
 * {@code @Transactional} on a method returning {@code Mono} or {@code Flux}, or by
 * {@code TransactionalOperator}); PostgreSQL releases it at COMMIT or ROLLBACK. Keys,
 * order, timeout and failures are those of {@link AdvisoryLockOperations}, the exceptions
 * signalled rather than thrown. A subscriber that cancels a wait makes the server stop
 * waiting at once. Examples: docs/reactive.md.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate
 */
public interface ReactiveAdvisoryLockOperations {

	/**
	 * Acquire exclusive locks on the given keys, waiting up to the default timeout.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @return completes when the locks are held; signals {@link LockBusyException} if
	 * they were not acquired within the default timeout, {@link LockTransactionException}
	 * if there is no suitable reactive transaction to join,
	 * {@link InvalidLockKeyException} if a key value cannot be used
	 */
	Mono<Void> lock(String namespace, @Nullable Object... keys);

	/**
	 * Try to acquire exclusive locks on the given keys without waiting.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @return {@code true} if every lock was acquired; {@code false} if one was held by
	 * another transaction, in which case the keys before it in ascending order stay held
	 * until the transaction ends
	 */
	Mono<Boolean> tryLock(String namespace, @Nullable Object... keys);

	/**
	 * Acquire the locks a request describes, of transaction scope.
	 * @param request the namespace, keys, mode, wait mode (not {@code SKIP}, which has no
	 * work to skip: use {@link #execute}) and timeout
	 * @return completes when the locks are held; signals {@link LockBusyException} if
	 * they were not acquired (held, for {@link WaitMode#TRY}; not within the timeout, for
	 * {@link WaitMode#BLOCK})
	 */
	Mono<Void> lock(LockRequest request);

	/**
	 * Run work under the locks of a request, making and subscribing its publisher only
	 * once they are held; a {@link WaitMode#SKIP} that finds a lock held completes empty.
	 * {@link LockScope#INVOCATION Invocation-scoped} locks are held as on the blocking
	 * stack ({@link AdvisoryLockOperations#execute}), from subscription until the work
	 * completes, fails or is cancelled; they refuse a transaction active in the
	 * subscriber's context.
	 * @param request the request
	 * @param callback makes the work
	 * @param <T> the type of the elements
	 * @return the work's elements; signals {@link LockLostException} after them if
	 * invocation-scoped locks were lost before the work ended (suppressed in an error of
	 * the work's own)
	 */
	<T> Flux<T> execute(LockRequest request, ReactiveLockCallback<T> callback);

	/**
	 * Run a {@code Mono} under the locks of a request, subscribing it once they are held:
	 * {@code mono.as((work) -> locks.locked(request, work))}.
	 * @param request the request
	 * @param mono the work
	 * @param <T> the type of the element
	 * @return the work's element; empty for a {@code SKIP} that found a lock held
	 */
	<T> Mono<T> locked(LockRequest request, Mono<T> mono);

	/**
	 * Run a {@code Flux} under the locks of a request, subscribing it once they are held.
	 * @param request the request
	 * @param flux the work
	 * @param <T> the type of the elements
	 * @return the work's elements; none for a {@code SKIP} that found a lock held
	 */
	<T> Flux<T> locked(LockRequest request, Flux<T> flux);

	/**
	 * Return whether the subscriber's reactive transaction holds the locks on the given
	 * keys, taken by this library. No database round trip.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @return whether every one is held; {@code false} without a reactive transaction
	 */
	Mono<Boolean> isHeld(String namespace, @Nullable Object... keys);

	/**
	 * Check, at a safe point of long work, that the invocation-scoped locks of the
	 * subscriber's enclosing {@link #execute} calls are still held. No database round
	 * trip.
	 * @return completes when they are held, or there are none; signals
	 * {@link LockLostException} when one was lost
	 */
	Mono<Void> checkHeld();

	/**
	 * Return the fencing token of the innermost invocation-scoped {@link #execute} call
	 * enclosing the subscriber: {@link LockHandle#fencingToken()} without blocking, with
	 * the same promises. Its first subscription issues it (a short transaction on a
	 * connection of its own); later ones, in the same hold, signal the same number.
	 * @return the token; signals {@link LockLostException} if the lock was found lost,
	 * and {@link IllegalStateException} outside an invocation-scoped call or after it
	 * ended
	 * @since 0.1.0
	 */
	Mono<Long> fencingToken();

}
