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

package io.github.advisorylock.core.transaction;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.session.HeldLocks;
import org.jspecify.annotations.Nullable;

/**
 * The keys this library took in one transaction, followed through its savepoints. It
 * answers without SQL whether the transaction holds a key (the guard against a call that
 * bypassed the proxy) and keeps the records of the thread's suspended transactions, whose
 * keys a call must not wait for. SQL run by hand is not known. A rollback to a savepoint
 * ({@code NESTED}) releases the locks taken after it: the record forgets them and tells
 * their acquisitions ({@link Acquisition#releasedToSavepoint()}), so that a listener need
 * not follow savepoints.
 *
 * <p>
 * A key is recorded with the resource and the connection it was taken on, compared by
 * identity. A key held on another resource (another database, as far as can be told) is
 * no conflict, nor is one held on the connection the call locks on: a transaction of
 * another manager suspends this record but leaves its connection bound, and a call that
 * joins that connection takes the key again re-entrantly.
 *
 * @author advisory-lock authors
 */
public final class TransactionLockRecord {

	/** The records of this thread's suspended transactions, innermost last. */
	private static final ThreadLocal<Deque<TransactionLockRecord>> suspended = new ThreadLocal<>();

	/** The keys taken, in order: a savepoint is a position in this list. */
	private final List<Taken> taken = new ArrayList<>();

	/** Each savepoint, with how many keys were taken before it. */
	private final Map<Object, Integer> savepoints = new LinkedHashMap<>();

	/** Record that a transaction of this thread is suspended, with the keys it holds. */
	public static void suspend(TransactionLockRecord transaction) {
		HeldLocks.addLast(suspended, transaction);
	}

	/** Record that a suspended transaction of this thread resumed. */
	public static void resume(TransactionLockRecord transaction) {
		HeldLocks.removeLast(suspended, transaction);
	}

	/**
	 * Refuse a call for a key that a suspended transaction of this thread holds in a
	 * conflicting mode, since that transaction resumes only after the call returns.
	 * @param mode the mode asked for
	 * @param keys the keys asked for
	 * @param resource the resource the call locks on
	 * @param connection the connection the call locks on, or {@code null} for one of its
	 * own; a key held on it is taken again re-entrantly
	 * @throws LockTransactionException naming the key and why it can never be had
	 */
	public static void checkNotSuspended(LockRequest request, LockMode mode, LockKeys keys, Object resource,
			@Nullable Object connection) {
		Deque<TransactionLockRecord> records = suspended.get();
		if (records != null) {
			checkNotSuspended(records, "this same thread", request, mode, keys, resource, connection);
		}
	}

	/**
	 * Refuse a call for a key that one of the given suspended transactions holds in a
	 * conflicting mode, for a driver that keeps them elsewhere (the reactive one).
	 * @param records the suspended transactions' records
	 * @param caller who they belong to, for the message ({@code this same subscriber})
	 * @param mode the mode asked for
	 * @param keys the keys asked for
	 * @param resource the resource the call locks on
	 * @param connection the connection the call locks on
	 * @throws LockTransactionException naming the key and why it can never be had
	 */
	public static void checkNotSuspended(Collection<TransactionLockRecord> records, String caller, LockRequest request,
			LockMode mode, LockKeys keys, Object resource, @Nullable Object connection) {
		if (request.permits() > 1) {
			checkLimitNotSuspended(records, caller, request, PermitSlots.of(request, keys), resource, connection);
			return;
		}
		for (TransactionLockRecord transaction : records) {
			for (int i = 0; i < keys.keys().size(); i++) {
				LockMode held = transaction.mode(keys.keys().get(i), resource, connection);
				if (held != null && (held == LockMode.EXCLUSIVE || mode == LockMode.EXCLUSIVE)) {
					throw suspendedHolderRefusal(request, keys.values().get(i), held, caller);
				}
			}
		}
	}

	// Refuse a limit only when suspended transactions hold every permit: another
	// permit's holder (or nobody) can free it.
	private static void checkLimitNotSuspended(Collection<TransactionLockRecord> records, String caller,
			LockRequest request, PermitSlots slots, Object resource, @Nullable Object connection) {
		for (Long slot : slots.slots()) {
			if (records.stream().allMatch((transaction) -> transaction.mode(slot, resource, connection) == null)) {
				return;
			}
		}
		throw suspendedLimitRefusal(request, slots.value(), caller);
	}

	/**
	 * Record keys the transaction now holds.
	 * @param mode the mode they were taken in
	 * @param resource the resource of the connection they were taken on
	 * @param connection the connection they were taken on
	 * @param acquisition told if a savepoint rollback releases them, or
	 * {@link Acquisition#IGNORED}
	 */
	public void record(LockMode mode, List<Long> keys, Object resource, Object connection, Acquisition acquisition) {
		for (Long key : keys) {
			this.taken.add(new Taken(key, mode, resource, connection, acquisition));
		}
	}

	/**
	 * Return whether the transaction holds a key, as far as this library took it.
	 * @param resource the resource it must be held on, or {@code null} for any
	 * @return whether it is held, in either mode
	 */
	public boolean holds(long key, @Nullable Object resource) {
		return this.taken.stream()
			.anyMatch((taken) -> taken.key() == key && (resource == null || taken.resource() == resource));
	}

	/**
	 * Return the strongest mode the transaction holds a key in on a resource, other than
	 * on the given connection.
	 */
	@Nullable LockMode mode(long key, Object resource, @Nullable Object connection) {
		LockMode mode = null;
		for (Taken each : this.taken) {
			if (each.key() == key && each.resource() == resource && each.connection() != connection) {
				if (each.mode() == LockMode.EXCLUSIVE) {
					return LockMode.EXCLUSIVE;
				}
				mode = LockMode.SHARED;
			}
		}
		return mode;
	}

	/**
	 * Return the acquisitions whose locks this transaction holds, each once, for a driver
	 * that tells them of its end (the reactive one).
	 * @return the acquisitions, in the order they were taken
	 */
	public List<Acquisition> acquisitions() {
		Set<Acquisition> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		List<Acquisition> acquisitions = new ArrayList<>();
		for (Taken each : this.taken) {
			if (each.acquisition() != Acquisition.IGNORED && seen.add(each.acquisition())) {
				acquisitions.add(each.acquisition());
			}
		}
		return acquisitions;
	}

	/** Note a savepoint made in the transaction. */
	public void savepoint(Object savepoint) {
		this.savepoints.put(savepoint, this.taken.size());
	}

	/**
	 * Forget the keys a rollback to a savepoint released, and tell their acquisitions.
	 */
	public void savepointRollback(Object savepoint) {
		// A savepoint not seen predates this record, and so every key in it.
		int position = this.savepoints.getOrDefault(savepoint, 0);
		List<Taken> released = this.taken.subList(position, this.taken.size());
		Set<Acquisition> told = Collections.newSetFromMap(new IdentityHashMap<>());
		List<Acquisition> acquisitions = new ArrayList<>();
		for (Taken each : released) {
			if (each.acquisition() != Acquisition.IGNORED && told.add(each.acquisition())) {
				acquisitions.add(each.acquisition());
			}
		}
		released.clear();
		// Savepoints made after this one are gone with it.
		boolean after = false;
		for (var iterator = this.savepoints.keySet().iterator(); iterator.hasNext();) {
			Object each = iterator.next();
			if (after) {
				iterator.remove();
			}
			after |= each == savepoint;
		}
		acquisitions.forEach(Acquisition::releasedToSavepoint);
	}

	private record Taken(long key, LockMode mode, Object resource, Object connection, Acquisition acquisition) {

	}

	private static LockTransactionException suspendedHolderRefusal(LockRequest request, String value, LockMode held,
			String caller) {
		return LockFailures.refused(request,
				"Advisory lock " + request.namespace() + ":" + AdvisoryLockKeys.printable(value) + " is held " + held
						+ " by a transaction of " + caller + " that is suspended "
						+ "(REQUIRES_NEW or NOT_SUPPORTED), and it resumes only after this call returns: the call "
						+ "could only wait for itself. Do the locked work in the outer transaction, or take the "
						+ "lock in the inner one only");
	}

	private static LockTransactionException suspendedLimitRefusal(LockRequest request, String value, String caller) {
		return LockFailures.refused(request,
				"Every one of the " + request.permits() + " permits of advisory lock " + request.namespace() + ":"
						+ AdvisoryLockKeys.printable(value) + " is held by a transaction of " + caller
						+ " that is suspended (REQUIRES_NEW or NOT_SUPPORTED), and they resume only after this call "
						+ "returns: the call could only wait for itself. Do the limited work in the outer transaction, "
						+ "or take the permit in the inner one only");
	}

}
