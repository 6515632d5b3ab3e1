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

import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Programmatic access to transaction-level advisory locks, for the current Spring
 * transaction.
 *
 * <p>
 * Every method joins the transaction bound to the current thread, takes the lock on that
 * transaction's JDBC connection, and leaves its release to PostgreSQL at COMMIT or
 * ROLLBACK, but those of {@link LockScope#INVOCATION invocation scope} ({@link #execute
 * execute} and {@link #acquire acquire}), which hold their locks on a connection of their
 * own. Each value in {@code keys} names one resource, or is a
 * {@link java.util.Collection} or array of resources; the keys are deduplicated and taken
 * in ascending order of their 64-bit value: in one round trip when they are free, and one
 * more to wait when one is held. {@link AdvisoryLocked @AdvisoryLocked} uses this same
 * API.
 *
 * <p>
 * A wait happens inside PostgreSQL and ends at the timeout at the latest. Interrupting
 * the waiting thread does not end it sooner (the JDBC driver's socket read ignores
 * interrupts); the interrupt status is kept for the caller. Other failures during a wait,
 * such as a terminated backend, a server shutdown or a {@code statement_timeout}, are
 * reported as the {@link org.springframework.dao.DataAccessException} Spring's translator
 * makes of them, never as a {@link LockBusyException}: the lock is not known to be busy.
 *
 * <pre class="code">
 * &#64;Transactional
 * public void transfer(long from, long to, BigDecimal amount) {
 *     this.locks.lock("account", from, to);
 *     // read both balances, then update them
 * }
 * </pre>
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public interface AdvisoryLockOperations {

	/**
	 * Acquire exclusive locks on the given keys, waiting up to the default timeout.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @throws LockBusyException if the locks were not acquired within the default timeout
	 * @throws LockTransactionException if there is no suitable transaction to join
	 * @throws InvalidLockKeyException if a key value cannot be used
	 */
	void lock(String namespace, @Nullable Object... keys);

	/**
	 * Try to acquire exclusive locks on the given keys without waiting.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @return {@code true} if every lock was acquired; {@code false} if one was held by
	 * another transaction, in which case the keys before it in ascending order stay held
	 * until the transaction ends
	 * @throws LockTransactionException if there is no suitable transaction to join
	 * @throws InvalidLockKeyException if a key value cannot be used
	 */
	boolean tryLock(String namespace, @Nullable Object... keys);

	/**
	 * Acquire the locks a request describes.
	 * <p>
	 * Keys that an enclosing {@link LockScope#INVOCATION invocation-scoped} call on this
	 * thread holds (or the call whose {@linkplain LockHandle#wrap(Runnable) handle wraps}
	 * the running task) are not taken again (that call's session would make this one wait
	 * for itself): the transaction takes their fence locks instead and checks, in the
	 * same round trip, that the enclosing call's session still holds them, so that its
	 * writes cannot commit after those of the next holder of a lost lock. This fenced
	 * write also bounds the transaction's idle time to the enclosing lock's dead-man
	 * switch (three heartbeats). The same holds for {@link #lock(String, Object...)},
	 * {@link #tryLock(String, Object...)} and a transaction-scoped
	 * {@link #execute(LockRequest, LockCallback) execute}.
	 * @param request the namespace, keys, mode, wait mode and timeout
	 * @throws LockBusyException if the locks were not acquired (held, for
	 * {@link WaitMode#TRY}; not within the timeout, for {@link WaitMode#BLOCK})
	 * @throws LockTransactionException if there is no suitable transaction to join
	 * @throws InvalidLockKeyException if a key value cannot be used
	 * @throws LockLostException if an enclosing invocation-scoped lock holding one of the
	 * keys is found lost, before the work that follows runs
	 */
	void lock(LockRequest request);

	/**
	 * Run work under the locks a request describes. With {@link LockScope#INVOCATION} the
	 * locks are held from before the callback until it has returned or thrown, by a
	 * connection of their own, whatever transactions the callback runs; the call must not
	 * itself run inside a transaction. With {@link LockScope#TRANSACTION} they are taken
	 * in the current transaction, as by {@link #lock(LockRequest)}, and last until it
	 * ends. With {@link WaitMode#SKIP} a lock found held means the callback does not run
	 * and the result is {@link LockResult#skipped()}; nothing stays held. What the
	 * callback throws reaches the caller unchanged, after the locks of an invocation
	 * scope were released. Invocation-scoped locks lost before the call ended (a failed
	 * heartbeat, the dead-man switch, or a rollback at the end that failed) end it with a
	 * {@link LockLostException} once the callback has returned, even if the callback
	 * caught the loss itself; an exception of the callback's own keeps it as suppressed.
	 * @param request the namespace, keys, mode, wait mode, timeout and scope
	 * @param callback the work
	 * @param <T> the type of the result
	 * @return whether the callback ran, and what it returned
	 * @throws LockBusyException if the locks were not acquired ({@link WaitMode#TRY}, or
	 * {@link WaitMode#BLOCK} past its timeout)
	 * @throws LockTransactionException if the scope's conditions are not met: no suitable
	 * transaction to join, or, for an invocation scope, a transaction already active
	 * @throws InvalidLockKeyException if a key value cannot be used
	 * @throws LockLostException if invocation-scoped locks were lost before the call
	 * ended
	 */
	<T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockCallback<T> callback);

	/**
	 * Acquire the {@link LockScope#INVOCATION invocation-scoped} locks a request
	 * describes and hold them, by a connection of their own, until
	 * {@link HeldLock#release()}: for a lock that outlives one call, as another library's
	 * lock API needs. The connection, its transaction, the heartbeat and the dead-man
	 * switch are those of {@link #execute execute}, but the locks belong to no thread
	 * (see {@link HeldLock}), and the call may run inside a transaction, which they do
	 * not join. They are not re-entrant: a key this thread already holds through an
	 * enclosing call is asked for again, and waits for itself.
	 * @param request the namespace, keys, mode, wait mode and timeout, of
	 * {@link LockScope#INVOCATION} scope
	 * @return the held locks, or empty when {@link WaitMode#SKIP} found one held
	 * @throws LockBusyException if the locks were not acquired ({@link WaitMode#TRY}, or
	 * {@link WaitMode#BLOCK} past its timeout)
	 * @throws IllegalArgumentException if the request is not of invocation scope
	 * @throws InvalidLockKeyException if a key value cannot be used
	 * @throws UnsupportedOperationException if this implementation holds no lock beyond a
	 * call (the default)
	 * @since 0.1.0
	 */
	default Optional<HeldLock> acquire(LockRequest request) {
		throw new UnsupportedOperationException(getClass().getName() + " does not hold locks beyond a call: "
				+ "use execute(request, callback), or AdvisoryLockTemplate");
	}

	/**
	 * Throw if an {@link LockScope#INVOCATION invocation-scoped} lock held for the
	 * current thread, by an annotated method or an {@link #execute execute} call, was
	 * lost; do nothing otherwise. Long work calls it at its safe points. It answers for
	 * the calling thread only: on a thread the work fans out to, which holds no lock of
	 * its own, it does nothing; check {@link #currentHandle()} there.
	 * @throws LockLostException if one of the current thread's invocation-scoped locks
	 * was lost
	 */
	void checkHeld();

	/**
	 * Return a handle on the {@link LockScope#INVOCATION invocation-scoped} locks the
	 * current thread holds, by an annotated method or an {@link #execute execute} call
	 * (the innermost one and those enclosing it), to hand to the threads the work fans
	 * out to: its {@link LockHandle#checkHeld()} throws on any thread once one of them
	 * was lost, where {@link #checkHeld()} on such a thread does nothing. Call it on the
	 * locked method's own thread. <pre class="code">
	 * &#64;AdvisoryLocked(namespace = "job", key = "'export'", scope = LockScope.INVOCATION)
	 * public void export() {
	 *     LockHandle handle = this.locks.currentHandle();
	 *     parts.parallelStream().forEach((part) -&gt; {
	 *         handle.checkHeld();
	 *         write(part);
	 *     });
	 * }
	 * </pre>
	 * @return the handle, which reports the locks as they were when the call that holds
	 * them ended, once it has
	 * @throws IllegalStateException if the current thread holds no invocation-scoped
	 * lock: it is not the locked method's thread, the method is transaction-scoped (whose
	 * lock is never lost), or the call did not go through the Spring proxy
	 * @since 0.1.0
	 */
	LockHandle currentHandle();

	/**
	 * Return whether every key is held, in either mode, by the current transaction or by
	 * an enclosing {@link LockScope#INVOCATION invocation-scoped} call on this thread.
	 * Answered from what this library took, without SQL: a lock taken by hand
	 * ({@code SELECT pg_advisory_xact_lock(...)}) is not seen, and a rollback to a
	 * savepoint ({@code Propagation.NESTED}) forgets the locks taken after it, as
	 * PostgreSQL releases them.
	 * @param namespace the namespace of the keys
	 * @param keys the key values, as the annotation or {@link #lock(String, Object...)}
	 * would take them
	 * @return whether all of them are held
	 * @throws InvalidLockKeyException if a key value cannot be used
	 * @see #assertHeld(String, Object...)
	 */
	boolean isHeld(String namespace, @Nullable Object... keys);

	/**
	 * Throw unless every key is held, as {@link #isHeld} answers: the guard a method
	 * calls at its start to prove it really runs under its lock. A call on {@code this}
	 * (from another method of the same class) bypasses the Spring proxy, and with it the
	 * {@link AdvisoryLocked @AdvisoryLocked} of the method called, silently; this makes
	 * that loud.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @throws IllegalStateException naming the namespace, the values and the likely
	 * cause, if one is not held
	 * @throws InvalidLockKeyException if a key value cannot be used
	 */
	void assertHeld(String namespace, @Nullable Object... keys);

}
