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
 * transaction; {@link AdvisoryLocked @AdvisoryLocked} uses this same API.
 *
 * <p>
 * Each method joins the transaction bound to the current thread and takes the lock on its
 * JDBC connection; PostgreSQL releases it at COMMIT or ROLLBACK. Only the
 * {@link LockScope#INVOCATION invocation-scoped} {@link #execute execute} and
 * {@link #acquire acquire} hold their locks on a connection of their own. Each value in
 * {@code keys} names one resource, or is a {@link java.util.Collection} or array of them;
 * the keys are deduplicated and taken in ascending order of their 64-bit value, so calls
 * naming the same resources in another order cannot deadlock.
 *
 * <p>
 * A wait runs inside PostgreSQL until the timeout: an interrupt does not end it sooner
 * (the JDBC driver's socket read ignores it) and stays set. Another failure during a wait
 * is the {@link org.springframework.dao.DataAccessException} Spring translates it to,
 * never a {@link LockBusyException}: the lock is not known to be busy. Examples:
 * docs/usage.md.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public interface AdvisoryLockOperations {

	/**
	 * Acquire exclusive locks on the given keys, waiting up to the default timeout.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @throws LockBusyException if not acquired within the default timeout
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
	 * For keys that an enclosing {@link LockScope#INVOCATION invocation-scoped} call on
	 * this thread holds (or whose {@linkplain LockHandle#wrap(Runnable) handle wraps} the
	 * running task), the transaction is a fenced write: rather than wait for that call's
	 * session, it takes the keys' fence locks and checks that the session still holds
	 * them, so that its writes cannot commit after the next holder's; its idle time is
	 * bounded to three heartbeats (docs/scheduled-work.md, "Fenced writes"). So do
	 * {@link #lock(String, Object...)}, {@link #tryLock(String, Object...)} and a
	 * transaction-scoped {@link #execute(LockRequest, LockCallback) execute}.
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
	 * Run work under the locks a request describes: taken as by
	 * {@link #lock(LockRequest)} for {@link LockScope#TRANSACTION}; for
	 * {@link LockScope#INVOCATION}, held by a connection of their own until the callback
	 * returns or throws, whatever transactions it runs. With {@link WaitMode#SKIP} a lock
	 * found held means the callback does not run and nothing stays held. The callback's
	 * exception reaches the caller unchanged, after invocation-scoped locks are released;
	 * if those were lost before the call ended, it ends with a {@link LockLostException}
	 * even when the callback caught the loss, and a callback's own exception carries it
	 * suppressed.
	 * @param request the namespace, keys, mode, wait mode, timeout and scope
	 * @param callback the work
	 * @param <T> the type of the result
	 * @return whether the callback ran, and what it returned
	 * @throws LockBusyException if the locks were not acquired ({@link WaitMode#TRY}, or
	 * {@link WaitMode#BLOCK} past its timeout)
	 * @throws LockTransactionException if there is no suitable transaction to join, or,
	 * for an invocation scope, a transaction is already active
	 * @throws InvalidLockKeyException if a key value cannot be used
	 * @throws LockLostException if invocation-scoped locks were lost during the call
	 */
	<T extends @Nullable Object> LockResult<T> execute(LockRequest request, LockCallback<T> callback);

	/**
	 * Acquire the {@link LockScope#INVOCATION invocation-scoped} locks a request
	 * describes and hold them until {@link HeldLock#release()}, for a lock that outlives
	 * one call, as another library's lock API needs. They are held as by {@link #execute
	 * execute}, but belong to no thread (see {@link HeldLock}); the call may run inside a
	 * transaction, which they do not join. They are not re-entrant: a key this thread
	 * already holds through an enclosing call waits for itself.
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
	 * Throw if an {@link LockScope#INVOCATION invocation-scoped} lock the current thread
	 * holds, by an annotated method or an {@link #execute execute} call, was lost; do
	 * nothing otherwise. Long work calls it at its safe points. On a thread the work fans
	 * out to, which holds no lock, it does nothing: check {@link #currentHandle()} there.
	 * @throws LockLostException if one of the current thread's invocation-scoped locks
	 * was lost
	 */
	void checkHeld();

	/**
	 * Return a handle on the {@link LockScope#INVOCATION invocation-scoped} locks the
	 * current thread holds (of the innermost call and those enclosing it), to hand to the
	 * threads the work fans out to, where {@link #checkHeld()} does nothing. Call it on
	 * the locked method's own thread (docs/scheduled-work.md, "When the lock is lost").
	 * @return the handle, which reports the locks as they were when their call ended,
	 * once it has
	 * @throws IllegalStateException if the current thread holds no invocation-scoped
	 * lock: it is not the locked method's thread, the method is transaction-scoped, or
	 * the call did not go through the Spring proxy
	 * @since 0.1.0
	 */
	LockHandle currentHandle();

	/**
	 * Return whether every key is held, in either mode, by the current transaction or by
	 * an enclosing {@link LockScope#INVOCATION invocation-scoped} call on this thread.
	 * Answered without SQL, from what this library took: a lock taken by hand in SQL is
	 * not seen, and a rollback to a savepoint forgets the locks taken after it, as
	 * PostgreSQL releases them.
	 * @param namespace the namespace of the keys
	 * @param keys the key values, as {@link #lock(String, Object...)} would take them
	 * @return whether all of them are held
	 * @throws InvalidLockKeyException if a key value cannot be used
	 * @see #assertHeld(String, Object...)
	 */
	boolean isHeld(String namespace, @Nullable Object... keys);

	/**
	 * Throw unless every key is held, as {@link #isHeld} answers: a guard at the start of
	 * a method that must run under its lock, which makes a call on {@code this} that
	 * bypassed the proxy and its {@link AdvisoryLocked @AdvisoryLocked} fail loudly.
	 * @param namespace the namespace of the keys
	 * @param keys the key values
	 * @throws IllegalStateException naming the namespace, the values and the likely
	 * cause, if one is not held
	 * @throws InvalidLockKeyException if a key value cannot be used
	 */
	void assertHeld(String namespace, @Nullable Object... keys);

}
