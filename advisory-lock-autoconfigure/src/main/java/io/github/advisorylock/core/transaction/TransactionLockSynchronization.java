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

import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Binds the {@link TransactionLockRecord record} of a Spring transaction's keys to that
 * transaction on the blocking stack, as Spring binds its resource holders, through
 * savepoints, suspend and resume. Suspended, the record joins the thread's suspended
 * ones, so that a call for a key they hold fails at once rather than wait for itself (or
 * skip as if another instance held it). Keys are recorded on the innermost resource (a
 * JDBC {@code DataSource}) and the holder of the connection they were taken on.
 *
 * @author advisory-lock authors
 */
public final class TransactionLockSynchronization implements TransactionSynchronization {

	private static final Object RESOURCE = new Object();

	private final TransactionLockRecord record = new TransactionLockRecord();

	private TransactionLockSynchronization() {
	}

	/**
	 * Record keys the current transaction now holds; nothing when it has no
	 * synchronization to follow it with.
	 * @param mode the mode they were taken in
	 * @param target the innermost resource of the connection they were taken on
	 * @param holder the holder of that connection
	 * @param acquisition told if a rollback to a savepoint releases them
	 */
	public static void record(LockMode mode, List<Long> keys, Object target, Object holder, Acquisition acquisition) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		TransactionLockSynchronization locks = (TransactionLockSynchronization) TransactionSynchronizationManager
			.getResource(RESOURCE);
		if (locks == null) {
			locks = new TransactionLockSynchronization();
			TransactionSynchronizationManager.bindResource(RESOURCE, locks);
			TransactionSynchronizationManager.registerSynchronization(locks);
		}
		locks.record.record(mode, keys, target, holder, acquisition);
	}

	/**
	 * Return whether the current transaction holds a key, as far as this library took it.
	 * @param target the innermost resource it must be held on, or {@code null} for any
	 * @return whether it is held, in either mode
	 */
	public static boolean holds(long key, @Nullable Object target) {
		TransactionLockSynchronization locks = (TransactionLockSynchronization) TransactionSynchronizationManager
			.getResource(RESOURCE);
		return locks != null && locks.record.holds(key, target);
	}

	@Override
	public void savepoint(Object savepoint) {
		this.record.savepoint(savepoint);
	}

	@Override
	public void savepointRollback(Object savepoint) {
		this.record.savepointRollback(savepoint);
	}

	@Override
	public void suspend() {
		TransactionSynchronizationManager.unbindResource(RESOURCE);
		TransactionLockRecord.suspend(this.record);
	}

	@Override
	public void resume() {
		TransactionLockRecord.resume(this.record);
		TransactionSynchronizationManager.bindResource(RESOURCE, this);
	}

	@Override
	public void afterCompletion(int status) {
		TransactionSynchronizationManager.unbindResourceIfPossible(RESOURCE);
	}

}
