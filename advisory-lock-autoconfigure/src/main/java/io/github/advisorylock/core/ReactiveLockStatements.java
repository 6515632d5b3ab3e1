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

import io.github.advisorylock.LockRequest;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The statements a reactive driver runs for {@link ReactiveTransactionLockFlow}, each
 * binding its parameters beside its SQL text, signalling a failure as the driver's
 * exception translated (naming {@link LockAcquisitions#task}) and a refused lock with the
 * reason read from the server; none blocks a thread. The twin of the JDBC driver's
 * {@code TransactionLockStatements}. Loaded only for reactive calls. Internal: used by
 * the driver adapters, not API.
 *
 * @param <B> the driver's bound connection
 * @author advisory-lock authors
 */
public interface ReactiveLockStatements<B> {

	/**
	 * Try every key, in order, in the transaction. A {@code SKIP} of several keys that
	 * finds one held gives back those taken before it.
	 * @param bound the transaction's connection
	 * @param request the request
	 * @param keys its keys, sorted
	 * @return the first key found held; empty when every one was taken
	 */
	Mono<Long> tryLock(B bound, LockRequest request, LockKeys keys);

	/**
	 * Wait for the key a try found held and those after it, bounded by the request's
	 * timeout; a subscriber that cancels cancels the wait on the server too.
	 * @param bound the transaction's connection
	 * @param request the request
	 * @param keys the keys of the request
	 * @param busyKey the key found held
	 * @return the attempt: acquired, or timed out with the driver's report
	 */
	Mono<LockAttempt> waitLock(B bound, LockRequest request, LockKeys keys, long busyKey);

	/**
	 * Take one free permit of a limit: try every slot, in order, in one statement that
	 * takes one at most.
	 * @param bound the transaction's connection
	 * @param request the request, with more than one permit
	 * @param slots the limit's slots
	 * @return the slot taken; empty when every one is held
	 */
	Mono<Long> tryPermit(B bound, LockRequest request, PermitSlots slots);

	/**
	 * Run one slice of a limit's wait, in one round trip, as the JDBC driver's
	 * {@code TransactionLockStatements.waitPermitSlice} does; a subscriber that cancels
	 * cancels the wait on the server too.
	 * @param bound the transaction's connection
	 * @param request the request, with more than one permit
	 * @param slots the limit's slots
	 * @param resumed whether an earlier slice ran out of time, leaving its savepoint to
	 * roll back to first
	 * @param slice how long to wait for the chosen slot
	 * @param waited the index of the slot to wait for, from 1
	 * @return the slot taken; empty when the slice ran out of time
	 */
	Mono<Long> waitPermitSlice(B bound, LockRequest request, PermitSlots slots, boolean resumed, Duration slice,
			int waited);

	/**
	 * End a limit's wait whose last slice ran out of time: roll back to its savepoint and
	 * release it, so that the transaction goes on without the permit.
	 * @param bound the transaction's connection
	 * @param request the request
	 * @param slots the limit's slots
	 * @return completes when done
	 */
	Mono<Void> endPermitWait(B bound, LockRequest request, PermitSlots slots);

	/**
	 * Make the transaction a fenced write: take the fence of each key and check that the
	 * enclosing sessions still hold them, in one round trip.
	 * @param bound the transaction's connection
	 * @param request the request
	 * @param fenced the keys, their sessions, and the transaction's idle bound
	 * @return the first key whose session no longer holds it; empty when every one does;
	 * an {@code IllegalStateException} if a session was released before it took its
	 * marker, a {@code LockLostException} if one was found lost then
	 */
	Mono<Long> fence(B bound, LockRequest request, FencedKeys fenced);

	/**
	 * Signal the exception of a lock not acquired, naming its holders where the diagnosis
	 * is on (asked here, on the failure path only).
	 * @param <T> the type of the publisher
	 * @param bound the transaction's connection
	 * @param request the request
	 * @param keys its keys
	 * @param attempt what the attempt found: busy, or timed out
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @param holderHint what the library knows of the holder, the end of the message, or
	 * {@code null}
	 * @return the error
	 */
	<T> Mono<T> busyError(B bound, LockRequest request, LockKeys keys, LockAttempt attempt, @Nullable Duration timeout,
			@Nullable String holderHint);

}
