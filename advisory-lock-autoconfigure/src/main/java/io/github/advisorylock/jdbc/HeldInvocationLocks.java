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
package io.github.advisorylock.jdbc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockKeys;
import org.jspecify.annotations.Nullable;

/**
 * The invocation-scoped locks the current thread holds, innermost last: what makes a
 * nested call for the same key re-entrant. Without it, a nested call would ask for the
 * key on another session and wait for itself until its timeout. Only locks on the same
 * {@code DataSource} count: a key held on one database is no lock on another.
 */
final class HeldInvocationLocks {

	private static final ThreadLocal<Deque<InvocationLock>> held = new ThreadLocal<>();

	private HeldInvocationLocks() {
	}

	/**
	 * Return the keys of a call that the current thread's invocation-scoped locks do not
	 * hold yet, after checking that those holding the others can serve it.
	 * @param namespace the namespace, for messages
	 * @param mode the mode the call asks for
	 * @param keys the call's keys
	 * @param target the innermost {@code DataSource} the call locks on (see
	 * {@link DataSourceUnwrapping#target}), or {@code null} when it is unknown; asked
	 * only when the thread holds invocation-scoped locks
	 * @return the keys still to acquire, possibly none; {@code keys} itself when the
	 * thread holds none of them
	 * @throws io.github.advisorylock.LockLostException if a lock holding one of them was
	 * lost
	 * @throws LockTransactionException if the call asks EXCLUSIVE for a key the thread
	 * holds SHARED
	 */
	static LockKeys notHeld(String namespace, LockMode mode, LockKeys keys, Supplier<@Nullable DataSource> target) {
		Deque<InvocationLock> locks = held.get();
		if (locks == null || locks.isEmpty()) {
			return keys;
		}
		DataSource dataSource = target.get();
		if (dataSource == null) {
			return keys;
		}
		List<Long> remaining = new ArrayList<>(keys.keys().size());
		List<String> values = new ArrayList<>(keys.keys().size());
		for (int i = 0; i < keys.keys().size(); i++) {
			long key = keys.keys().get(i);
			InvocationLock holder = holder(locks, key, mode, dataSource);
			if (holder == null) {
				remaining.add(key);
				values.add(keys.values().get(i));
			}
			else {
				holder.checkHeld();
			}
		}
		return (remaining.size() == keys.keys().size()) ? keys
				: new LockKeys(List.copyOf(remaining), List.copyOf(values));
	}

	private static @Nullable InvocationLock holder(Deque<InvocationLock> locks, long key, LockMode mode,
			DataSource target) {
		InvocationLock shared = null;
		for (InvocationLock lock : locks) {
			if (lock.target() == target && lock.keys().keys().contains(key)) {
				if (lock.mode() == LockMode.EXCLUSIVE || mode == LockMode.SHARED) {
					return lock;
				}
				shared = lock;
			}
		}
		if (shared != null) {
			throw new LockTransactionException("Advisory lock " + shared.description() + " is held SHARED by an "
					+ "enclosing invocation-scoped call on this thread, and this call asks for it EXCLUSIVE: it would "
					+ "wait for itself forever. Take it EXCLUSIVE in the enclosing call");
		}
		return null;
	}

	/**
	 * Return whether an invocation-scoped lock of the current thread holds a key, in
	 * either mode.
	 * @param key the key
	 * @param target the innermost {@code DataSource} it must be held on, or {@code null}
	 * for any
	 * @return whether it does
	 */
	static boolean holds(long key, @Nullable DataSource target) {
		Deque<InvocationLock> locks = held.get();
		return locks != null && locks.stream()
			.anyMatch((lock) -> (target == null || lock.target() == target) && lock.keys().keys().contains(key));
	}

	static void push(InvocationLock lock) {
		Deque<InvocationLock> locks = held.get();
		if (locks == null) {
			locks = new ArrayDeque<>(2);
			held.set(locks);
		}
		locks.addLast(lock);
	}

	static void pop(InvocationLock lock) {
		Deque<InvocationLock> locks = held.get();
		if (locks != null) {
			locks.removeLastOccurrence(lock);
			if (locks.isEmpty()) {
				held.remove();
			}
		}
	}

	/**
	 * Throw if one of the current thread's invocation-scoped locks was lost.
	 */
	static void checkHeld() {
		Deque<InvocationLock> locks = held.get();
		if (locks != null) {
			locks.forEach(InvocationLock::checkHeld);
		}
	}

	/**
	 * Return a handle on the current thread's invocation-scoped locks, for the threads
	 * its work fans out to.
	 * @return the handle
	 * @throws IllegalStateException if the thread holds none
	 */
	static LockHandle currentHandle() {
		Deque<InvocationLock> locks = held.get();
		if (locks == null || locks.isEmpty()) {
			throw new IllegalStateException("currentHandle() found no invocation-scoped advisory lock held by this "
					+ "thread (" + Thread.currentThread().getName()
					+ "). Call it on the thread of the method annotated "
					+ "with @AdvisoryLocked(scope = LockScope.INVOCATION), or of the execute callback, and hand the "
					+ "handle to the threads the work fans out to; a call on 'this' from another method of the same "
					+ "class skips the annotation, and a transaction-scoped lock needs no handle (it is never lost)");
		}
		return (locks.size() == 1) ? locks.getFirst() : current();
	}

	/**
	 * Return a handle on the current thread's invocation-scoped locks, for a nested call
	 * that acquired nothing new.
	 * @return the handle
	 */
	static LockHandle current() {
		Deque<InvocationLock> locks = held.get();
		List<InvocationLock> enclosing = (locks != null) ? List.copyOf(locks) : List.of();
		return new LockHandle() {

			@Override
			public boolean isLost() {
				return enclosing.stream().anyMatch(InvocationLock::isLost);
			}

			@Override
			public void checkHeld() {
				enclosing.forEach(InvocationLock::checkHeld);
			}

			@Override
			public String toString() {
				return enclosing.toString();
			}

		};
	}

}
