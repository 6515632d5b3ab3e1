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

package io.github.advisorylock.core.session;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import org.jspecify.annotations.Nullable;

/**
 * The invocation-scoped locks the current thread holds through this library, innermost
 * last, which make nested calls re-entrant: a nested call would otherwise ask for a key
 * on another session and wait for itself, or skip as if another instance held it. A lock
 * is held on a resource the driver chooses (on JDBC the innermost {@code DataSource}),
 * compared by identity: a key held on one database is no lock on another.
 *
 * @author advisory-lock authors
 */
public final class HeldLocks {

	private static final ThreadLocal<Deque<HeldSession>> invocations = new ThreadLocal<>();

	private static final LockHandle TRANSACTION_HANDLE = new LockHandle() {

		@Override
		public boolean isLost() {
			return false;
		}

		@Override
		public void checkHeld() {
		}

		@Override
		public long fencingToken() {
			throw new IllegalStateException("A transaction-scoped advisory lock has no fencing token: the only number "
					+ "its transaction could give is its own xid, handed out before it commits, and an xid whose "
					+ "transaction never commits can be assigned again after a crash. Take the lock with scope = "
					+ "LockScope.INVOCATION (docs/scheduled-work.md, \"Fencing tokens\")");
		}

		@Override
		public Runnable wrap(Runnable task) {
			return task;
		}

		@Override
		public <T> Callable<T> wrap(Callable<T> task) {
			return task;
		}

	};

	private HeldLocks() {
	}

	/**
	 * Return the keys of a call that the current thread's invocation-scoped locks do not
	 * hold yet, after checking that those holding the others can serve it.
	 * @param request the call: the mode it asks for, and what a refusal names
	 * @param keys the call's keys
	 * @param resource what the call locks on ({@code null} if unknown), asked if needed
	 * @return the keys still to acquire; {@code keys} itself when the thread holds none
	 * @throws io.github.advisorylock.LockLostException if a lock holding one was lost
	 * @throws LockTransactionException if the call asks EXCLUSIVE for a key held SHARED
	 */
	public static LockKeys notHeld(LockRequest request, LockKeys keys, Supplier<? extends @Nullable Object> resource) {
		Deque<HeldSession> locks = invocations.get();
		return (locks != null) ? notHeld(locks, request, keys, resource) : keys;
	}

	/**
	 * Return the keys of a call that the given enclosing locks do not hold yet, as
	 * {@link #notHeld(LockRequest, LockKeys, Supplier)} does for the thread's: for a
	 * driver that keeps them elsewhere (the reactive one, in the subscriber's context).
	 * @param locks the enclosing invocation-scoped locks
	 * @param request the call: the mode it asks for, and what a refusal names
	 * @param keys the call's keys
	 * @param resource what the call locks on ({@code null} if unknown), asked if needed
	 * @return the keys still to acquire; {@code keys} itself when the locks hold none
	 */
	public static LockKeys notHeld(Collection<? extends HeldSession> locks, LockRequest request, LockKeys keys,
			Supplier<? extends @Nullable Object> resource) {
		if (locks.isEmpty()) {
			return keys;
		}
		Object target = resource.get();
		if (target == null) {
			return keys;
		}
		List<Long> remaining = new ArrayList<>(keys.keys().size());
		List<String> values = new ArrayList<>(keys.keys().size());
		for (int i = 0; i < keys.keys().size(); i++) {
			long key = keys.keys().get(i);
			HeldSession holder = holder(locks, key, request, target);
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

	/** Return the current thread's invocation-scoped locks, the innermost last. */
	public static Collection<HeldSession> enclosing() {
		Deque<HeldSession> locks = invocations.get();
		return (locks != null) ? locks : List.of();
	}

	/**
	 * Return the outermost of the given locks that holds a key for a call: the lock whose
	 * session a fenced write checks.
	 * @param locks the invocation-scoped locks enclosing the call
	 * @param request the call: the mode it asks for, and what a refusal names
	 * @param resource the resource the call locks on
	 * @return the lock, or {@code null} if none holds the key
	 * @throws LockTransactionException if only SHARED holds it and EXCLUSIVE is asked
	 */
	public static @Nullable HeldSession holder(Collection<? extends HeldSession> locks, long key, LockRequest request,
			Object resource) {
		LockMode mode = request.mode();
		HeldSession shared = null;
		for (HeldSession lock : locks) {
			if (lock.resource() == resource && lock.keys().keys().contains(key)) {
				if (lock.mode() == LockMode.EXCLUSIVE || mode == LockMode.SHARED) {
					return lock;
				}
				shared = lock;
			}
		}
		if (shared != null) {
			throw LockFailures.refused(request, "Advisory lock " + shared.description() + " is held SHARED by an "
					+ "enclosing invocation-scoped call on this thread, and this call asks for it EXCLUSIVE: it would "
					+ "wait for itself forever. Take it EXCLUSIVE in the enclosing call");
		}
		return null;
	}

	/**
	 * Return whether the thread's invocation-scoped locks hold a key, in either mode.
	 * @param resource the resource it must be held on, or {@code null} for any
	 * @return whether it does
	 */
	public static boolean holdsInvocation(long key, @Nullable Object resource) {
		Deque<HeldSession> locks = invocations.get();
		return locks != null && holdsInvocation(locks, key, resource);
	}

	/**
	 * Return whether one of the given invocation-scoped locks holds a key, either mode.
	 * @param locks the invocation-scoped locks
	 * @param resource the resource it must be held on, or {@code null} for any
	 * @return whether one does
	 */
	public static boolean holdsInvocation(Collection<? extends HeldSession> locks, long key,
			@Nullable Object resource) {
		return locks.stream()
			.anyMatch((lock) -> (resource == null || lock.resource() == resource) && lock.keys().keys().contains(key));
	}

	/**
	 * Record an invocation-scoped lock the thread holds for the time of its work.
	 */
	public static void push(HeldSession lock) {
		addLast(invocations, lock);
	}

	/**
	 * Forget an invocation-scoped lock whose work has ended.
	 */
	public static void pop(HeldSession lock) {
		removeLast(invocations, lock);
	}

	/**
	 * Throw if one of the current thread's invocation-scoped locks was lost.
	 */
	public static void checkHeld() {
		Deque<HeldSession> locks = invocations.get();
		if (locks != null) {
			locks.forEach(HeldSession::checkHeld);
		}
	}

	/**
	 * Return a handle on this thread's locks, for the threads its work fans out to.
	 * @throws IllegalStateException if the thread holds none
	 */
	public static LockHandle currentHandle() {
		Deque<HeldSession> locks = invocations.get();
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
	 * Return a handle on this thread's locks, for a nested call that acquired nothing.
	 */
	public static LockHandle current() {
		Deque<HeldSession> locks = invocations.get();
		List<HeldSession> enclosing = (locks != null) ? List.copyOf(locks) : List.of();
		return new LockHandle() {

			@Override
			public boolean isLost() {
				return enclosing.stream().anyMatch(HeldSession::isLost);
			}

			@Override
			public void checkHeld() {
				enclosing.forEach(HeldSession::checkHeld);
			}

			@Override
			public long fencingToken() {
				if (enclosing.size() != 1) {
					throw new IllegalStateException("This call took no advisory lock of its own: the "
							+ enclosing.size() + " invocation-scoped calls enclosing it hold its keys, and each has "
							+ "a fencing token of its own. Ask the handle of the call that took the keys");
				}
				return enclosing.get(0).fencingToken();
			}

			@Override
			public Runnable wrap(Runnable task) {
				return bind(enclosing, task);
			}

			@Override
			public <T> Callable<T> wrap(Callable<T> task) {
				return bind(enclosing, task);
			}

			@Override
			public String toString() {
				return enclosing.toString();
			}

		};
	}

	/**
	 * Return the handle of a transaction-scoped lock: never lost while its transaction
	 * runs statements, and binding nothing to another thread (another transaction).
	 */
	public static LockHandle transactionHandle() {
		return TRANSACTION_HANDLE;
	}

	/**
	 * Return a task that runs with the given locks held by its thread, as {@link #push}
	 * records them, and forgets them when it ends: {@link LockHandle#wrap(Runnable)}.
	 * @param locks the locks, held by a call on another thread
	 * @param task the work
	 */
	public static Runnable bind(List<? extends HeldSession> locks, Runnable task) {
		List<HeldSession> bound = List.copyOf(locks);
		return () -> {
			enter(bound);
			try {
				task.run();
			}
			finally {
				exit(bound);
			}
		};
	}

	/**
	 * Return a task that runs with the given locks held by its thread:
	 * {@link #bind(List, Runnable)} for work that returns a value.
	 * @param locks the locks, held by a call on another thread
	 * @param task the work
	 */
	public static <T> Callable<T> bind(List<? extends HeldSession> locks, Callable<T> task) {
		List<HeldSession> bound = List.copyOf(locks);
		return () -> {
			enter(bound);
			try {
				return task.call();
			}
			finally {
				exit(bound);
			}
		};
	}

	// A task started after its call ended would run unguarded, and its fenced writes
	// would count the release as a loss.
	private static void enter(List<HeldSession> locks) {
		for (HeldSession lock : locks) {
			lock.checkHeld();
			if (lock.isReleased()) {
				throw new IllegalStateException("The call that held advisory lock " + lock.description()
						+ " (invocation scope) has ended, and released it: a task its handle wraps cannot run under "
						+ "it any more. Wait inside the locked call for the work it fans out to");
			}
		}
		locks.forEach(HeldLocks::push);
	}

	private static void exit(List<HeldSession> locks) {
		for (int i = locks.size() - 1; i >= 0; i--) {
			pop(locks.get(i));
		}
	}

	/**
	 * Push an entry on a thread's stack, such as the suspended transactions' records.
	 * @param <T> the entries
	 * @param stack the thread's stack
	 */
	public static <T> void addLast(ThreadLocal<Deque<T>> stack, T entry) {
		Deque<T> entries = stack.get();
		if (entries == null) {
			entries = new ArrayDeque<>(2);
			stack.set(entries);
		}
		entries.addLast(entry);
	}

	/**
	 * Remove an entry from a stack of the thread, and the stack once empty, so that a
	 * pooled thread keeps nothing.
	 * @param <T> the entries
	 * @param stack the thread's stack
	 */
	public static <T> void removeLast(ThreadLocal<Deque<T>> stack, T entry) {
		Deque<T> entries = stack.get();
		if (entries != null) {
			entries.removeLastOccurrence(entry);
			if (entries.isEmpty()) {
				stack.remove();
			}
		}
	}

}
