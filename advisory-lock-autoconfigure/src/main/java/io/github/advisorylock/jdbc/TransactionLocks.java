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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The keys this library took in one Spring transaction, followed through suspend, resume
 * and savepoints. It answers two questions without SQL:
 * <ul>
 * <li>does the current transaction hold a key ({@link AdvisoryLockTemplate#isHeld}), the
 * guard against a call that bypassed the proxy;</li>
 * <li>is a key asked for held by a transaction of this thread that is suspended
 * ({@code REQUIRES_NEW}, {@code NOT_SUPPORTED})? Such a call can never get the key, since
 * the holder resumes only after the call has returned: without this, it would wait for
 * itself until its timeout, or skip as if another instance held it.</li>
 * </ul>
 *
 * <p>
 * Bound to the transaction as a resource, like Spring's own resource holders; suspended,
 * it moves to a stack of the thread, and back when the transaction resumes. A rollback to
 * a savepoint ({@code Propagation.NESTED}) releases, in PostgreSQL, the locks taken after
 * the savepoint, so it forgets them too. Only what the library took is known, not SQL run
 * by hand.
 *
 * <p>
 * Each key is recorded with the {@code DataSource} and the connection it was taken on. A
 * key held on another {@code DataSource} is no conflict (another database, as far as the
 * library can tell), and neither is one held on the very connection the call locks on: a
 * transaction of another manager inside this one suspends this record, but leaves its
 * connection bound, and a call that joins that connection takes the key again
 * re-entrantly.
 */
final class TransactionLocks implements TransactionSynchronization {

	/** The key of the current transaction's record among its resources. */
	private static final Object RESOURCE = new Object();

	/** The records of this thread's suspended transactions, innermost last. */
	private static final ThreadLocal<Deque<TransactionLocks>> suspended = new ThreadLocal<>();

	/**
	 * The keys taken, in order, each with its mode and connection: a savepoint is a
	 * position in this list.
	 */
	private final List<Taken> taken = new ArrayList<>();

	/**
	 * Each savepoint Spring made in this transaction, with how many keys were taken
	 * before it.
	 */
	private final Map<Object, Integer> savepoints = new LinkedHashMap<>();

	private TransactionLocks() {
	}

	/**
	 * Record keys the current transaction now holds; nothing when it has no
	 * synchronization to follow it with.
	 * @param mode the mode they were taken in
	 * @param keys the keys
	 * @param target the innermost {@code DataSource} of the connection they were taken on
	 * @param holder the holder of that connection
	 */
	static void record(LockMode mode, List<Long> keys, DataSource target, ConnectionHolder holder) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		TransactionLocks locks = (TransactionLocks) TransactionSynchronizationManager.getResource(RESOURCE);
		if (locks == null) {
			locks = new TransactionLocks();
			TransactionSynchronizationManager.bindResource(RESOURCE, locks);
			TransactionSynchronizationManager.registerSynchronization(locks);
		}
		for (Long key : keys) {
			locks.taken.add(new Taken(key, mode, target, holder));
		}
	}

	/**
	 * Return whether the current transaction holds a key, as far as this library took it.
	 * @param key the key
	 * @param target the innermost {@code DataSource} it must be held on, or {@code null}
	 * for any
	 * @return whether it is held, in either mode
	 */
	static boolean holds(long key, @Nullable DataSource target) {
		TransactionLocks locks = (TransactionLocks) TransactionSynchronizationManager.getResource(RESOURCE);
		return locks != null && locks.taken.stream()
			.anyMatch((taken) -> taken.key() == key && (target == null || taken.target() == target));
	}

	/**
	 * Refuse a call for a key that a suspended transaction of this thread holds in a
	 * conflicting mode.
	 * @param namespace the namespace, for the message
	 * @param mode the mode asked for
	 * @param keys the keys asked for
	 * @param target the innermost {@code DataSource} the call locks on
	 * @param holder the holder of the connection the call locks on, or {@code null} for a
	 * connection of its own
	 * @throws LockTransactionException naming the key and why it can never be had
	 */
	static void checkNotSuspended(String namespace, LockMode mode, LockKeys keys, DataSource target,
			@Nullable ConnectionHolder holder) {
		Deque<TransactionLocks> locks = suspended.get();
		if (locks == null) {
			return;
		}
		for (TransactionLocks transaction : locks) {
			for (int i = 0; i < keys.keys().size(); i++) {
				LockMode held = transaction.mode(keys.keys().get(i), target, holder);
				if (held != null && (held == LockMode.EXCLUSIVE || mode == LockMode.EXCLUSIVE)) {
					throw LockFailures.suspendedHolderRefusal(namespace, keys.values().get(i), held);
				}
			}
		}
	}

	/**
	 * Return the strongest mode this transaction holds a key in on a {@code DataSource},
	 * other than on the given connection.
	 */
	private @Nullable LockMode mode(long key, DataSource target, @Nullable ConnectionHolder holder) {
		LockMode mode = null;
		for (Taken each : this.taken) {
			if (each.key() == key && each.target() == target && each.holder() != holder) {
				if (each.mode() == LockMode.EXCLUSIVE) {
					return LockMode.EXCLUSIVE;
				}
				mode = LockMode.SHARED;
			}
		}
		return mode;
	}

	@Override
	public void savepoint(Object savepoint) {
		this.savepoints.put(savepoint, this.taken.size());
	}

	@Override
	public void savepointRollback(Object savepoint) {
		// A savepoint not seen was made before this record was, so before every key in
		// it.
		int position = this.savepoints.getOrDefault(savepoint, 0);
		// PostgreSQL releases the locks taken after the savepoint; those taken before it
		// stay.
		this.taken.subList(position, this.taken.size()).clear();
		// Savepoints made after this one are gone with it.
		boolean after = false;
		for (var iterator = this.savepoints.keySet().iterator(); iterator.hasNext();) {
			Object each = iterator.next();
			if (after) {
				iterator.remove();
			}
			after |= each == savepoint;
		}
	}

	@Override
	public void suspend() {
		TransactionSynchronizationManager.unbindResource(RESOURCE);
		Deque<TransactionLocks> locks = suspended.get();
		if (locks == null) {
			locks = new ArrayDeque<>(2);
			suspended.set(locks);
		}
		locks.addLast(this);
	}

	@Override
	public void resume() {
		Deque<TransactionLocks> locks = suspended.get();
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
	 * A key taken, in a mode, on a connection.
	 */
	private record Taken(long key, LockMode mode, DataSource target, ConnectionHolder holder) {

	}

}
