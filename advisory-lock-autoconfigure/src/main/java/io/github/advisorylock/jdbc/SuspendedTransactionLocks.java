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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockTransactionException;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The keys this library took in one Spring transaction, followed through suspend and resume: what tells a call that
 * the key it asks for is held by a transaction of its own thread that is suspended ({@code REQUIRES_NEW},
 * {@code NOT_SUPPORTED}). Such a call can never get the key, since the holder resumes only after the call has
 * returned: without this, it would wait for itself until its timeout, or skip as if another instance held it.
 *
 * <p>Bound to the transaction as a resource, like Spring's own resource holders; suspended, it moves to a stack of the
 * thread, and back when the transaction resumes. Only what the library took is known, not SQL run by hand.
 *
 * <p>Each key is recorded with the {@code DataSource} and the connection it was taken on. A key held on another
 * {@code DataSource} is no conflict (another database, as far as the library can tell), and neither is one held on
 * the very connection the call locks on: a transaction of another manager inside this one suspends this record, but
 * leaves its connection bound, and a call that joins that connection takes the key again re-entrantly.
 */
final class SuspendedTransactionLocks implements TransactionSynchronization {

	/** The key of the current transaction's record among its resources. */
	private static final Object RESOURCE = new Object();

	/** The records of this thread's suspended transactions, innermost last. */
	private static final ThreadLocal<Deque<SuspendedTransactionLocks>> suspended = new ThreadLocal<>();

	private final List<Held> held = new ArrayList<>(1);

	private SuspendedTransactionLocks() {
	}

	/**
	 * Record keys the current transaction now holds; nothing when it has no synchronization to follow it with.
	 * @param mode the mode they were taken in
	 * @param keys the keys
	 * @param target the innermost {@code DataSource} of the connection they were taken on
	 * @param holder the holder of that connection
	 */
	static void record(LockMode mode, List<Long> keys, DataSource target, ConnectionHolder holder) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		SuspendedTransactionLocks locks = (SuspendedTransactionLocks) TransactionSynchronizationManager
			.getResource(RESOURCE);
		if (locks == null) {
			locks = new SuspendedTransactionLocks();
			TransactionSynchronizationManager.bindResource(RESOURCE, locks);
			TransactionSynchronizationManager.registerSynchronization(locks);
		}
		Held held = locks.held(target, holder);
		for (Long key : keys) {
			held.keys.merge(key, mode, (taken, asked) -> (taken == LockMode.SHARED) ? asked : taken);
		}
	}

	private Held held(DataSource target, ConnectionHolder holder) {
		for (Held candidate : this.held) {
			if (candidate.target == target && candidate.holder == holder) {
				return candidate;
			}
		}
		Held held = new Held(target, holder);
		this.held.add(held);
		return held;
	}

	/**
	 * Refuse a call for a key that a suspended transaction of this thread holds in a conflicting mode.
	 * @param namespace the namespace, for the message
	 * @param mode the mode asked for
	 * @param keys the keys asked for
	 * @param target the innermost {@code DataSource} the call locks on
	 * @param holder the holder of the connection the call locks on, or {@code null} for a connection of its own
	 * @throws LockTransactionException naming the key and why it can never be had
	 */
	static void check(String namespace, LockMode mode, LockKeys keys, DataSource target,
			@Nullable ConnectionHolder holder) {
		Deque<SuspendedTransactionLocks> locks = suspended.get();
		if (locks == null) {
			return;
		}
		for (SuspendedTransactionLocks transaction : locks) {
			for (Held held : transaction.held) {
				if (held.target != target || held.holder == holder) {
					continue;
				}
				for (int i = 0; i < keys.keys().size(); i++) {
					LockMode taken = held.keys.get(keys.keys().get(i));
					if (taken != null && (taken == LockMode.EXCLUSIVE || mode == LockMode.EXCLUSIVE)) {
						throw new LockTransactionException("Advisory lock " + namespace + ":" + keys.values().get(i)
								+ " is held " + taken + " by a transaction of this same thread that is suspended "
								+ "(REQUIRES_NEW or NOT_SUPPORTED), and it resumes only after this call returns: the "
								+ "call could only wait for itself. Do the locked work in the outer transaction, or "
								+ "take the lock in the inner one only");
					}
				}
			}
		}
	}

	@Override
	public void suspend() {
		TransactionSynchronizationManager.unbindResource(RESOURCE);
		Deque<SuspendedTransactionLocks> locks = suspended.get();
		if (locks == null) {
			locks = new ArrayDeque<>(2);
			suspended.set(locks);
		}
		locks.addLast(this);
	}

	@Override
	public void resume() {
		Deque<SuspendedTransactionLocks> locks = suspended.get();
		if (locks != null) {
			locks.removeLastOccurrence(this);
			if (locks.isEmpty()) {
				suspended.remove();
			}
		}
		TransactionSynchronizationManager.bindResource(RESOURCE, this);
	}

	@Override
	public void afterCompletion(int status) {
		TransactionSynchronizationManager.unbindResourceIfPossible(RESOURCE);
	}

	/**
	 * The keys taken on one connection of the transaction.
	 */
	private static final class Held {

		final DataSource target;

		final ConnectionHolder holder;

		final Map<Long, LockMode> keys = new HashMap<>();

		Held(DataSource target, ConnectionHolder holder) {
			this.target = target;
			this.holder = holder;
		}

	}

}
