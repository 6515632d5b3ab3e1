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

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.LockKeys;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * The locks a reactive transaction took, kept as its resource until it completes, so that
 * {@code isHeld} can answer: the twin of {@link TransactionLockSynchronization}. Spring's
 * reactive transactions tell a synchronization of no savepoint, so a lock a rollback to a
 * savepoint ({@code NESTED}) released is reported held until the transaction ends
 * (docs/reactive.md). Loaded only for reactive calls.
 *
 * @author advisory-lock authors
 */
public final class ReactiveTransactionLockSynchronization implements TransactionSynchronization {

	private static final Object RESOURCE = new Object();

	/** The records of the transactions suspended around the current one. */
	private static final Object SUSPENDED = new Object();

	private final TransactionSynchronizationManager transaction;

	private final TransactionLockRecord record = new TransactionLockRecord();

	private ReactiveTransactionLockSynchronization(TransactionSynchronizationManager transaction) {
		this.transaction = transaction;
	}

	/**
	 * Record locks taken in the current reactive transaction.
	 * @param transaction its synchronization
	 * @param keys the keys taken
	 * @param resource the connection factory the locks are known by
	 * @param connection its connection
	 * @param acquisition the listeners' view of the acquisition
	 */
	public static void record(TransactionSynchronizationManager transaction, LockMode mode, List<Long> keys,
			Object resource, Object connection, Acquisition acquisition) {
		if (!transaction.isSynchronizationActive()) {
			return;
		}
		ReactiveTransactionLockSynchronization locks = (ReactiveTransactionLockSynchronization) transaction
			.getResource(RESOURCE);
		if (locks == null) {
			locks = new ReactiveTransactionLockSynchronization(transaction);
			transaction.bindResource(RESOURCE, locks);
			transaction.registerSynchronization(locks);
		}
		locks.record.record(mode, keys, resource, connection, acquisition);
	}

	/**
	 * Return whether the current reactive transaction took a key.
	 * @param transaction its synchronization
	 * @param resource the connection factory it was taken on, or {@code null} for any
	 * @return whether it did
	 */
	public static boolean holds(TransactionSynchronizationManager transaction, long key, @Nullable Object resource) {
		ReactiveTransactionLockSynchronization locks = (ReactiveTransactionLockSynchronization) transaction
			.getResource(RESOURCE);
		return locks != null && locks.record.holds(key, resource);
	}

	/**
	 * Refuse a call for a key that a transaction suspended around the current one
	 * ({@code REQUIRES_NEW}) holds in a conflicting mode, as the blocking stack does.
	 * @param transaction the synchronization of the current reactive transaction
	 * @param mode the mode it asks for
	 * @param keys its keys
	 * @param resource the connection factory it locks on
	 * @param connection the connection it locks on
	 */
	public static void checkNotSuspended(TransactionSynchronizationManager transaction, LockRequest request,
			LockMode mode, LockKeys keys, Object resource, Object connection) {
		if (transaction.getResource(SUSPENDED) instanceof Deque<?> suspended && !suspended.isEmpty()) {
			List<TransactionLockRecord> records = new ArrayList<>();
			suspended.forEach((each) -> records.add(((ReactiveTransactionLockSynchronization) each).record));
			TransactionLockRecord.checkNotSuspended(records, "this same subscriber", request, mode, keys, resource,
					connection);
		}
	}

	@Override
	public Mono<Void> suspend() {
		// The synchronization manager and its other resources, such as the stack of
		// suspended records, outlive the suspension.
		return Mono.fromRunnable(() -> {
			this.transaction.unbindResource(RESOURCE);
			suspended(this.transaction).push(this);
		});
	}

	@Override
	public Mono<Void> resume() {
		return Mono.fromRunnable(() -> {
			suspended(this.transaction).remove(this);
			this.transaction.bindResource(RESOURCE, this);
		});
	}

	@SuppressWarnings("unchecked")
	private static Deque<ReactiveTransactionLockSynchronization> suspended(
			TransactionSynchronizationManager transaction) {
		Object suspended = transaction.getResource(SUSPENDED);
		if (suspended == null) {
			suspended = new ArrayDeque<ReactiveTransactionLockSynchronization>();
			transaction.bindResource(SUSPENDED, suspended);
		}
		return (Deque<ReactiveTransactionLockSynchronization>) suspended;
	}

	@Override
	public Mono<Void> afterCompletion(int status) {
		return Mono.fromRunnable(() -> {
			this.transaction.unbindResourceIfPossible(RESOURCE);
			// Its locks end here; a listener has no thread-bound synchronization to
			// follow a reactive transaction with.
			this.record.acquisitions().forEach((acquisition) -> acquisition.released(false));
		});
	}

}
