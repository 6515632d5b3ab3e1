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
import io.github.advisorylock.core.session.HeldLocks;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Binds the {@link TransactionLockRecord record of the keys a Spring transaction took} to
 * that transaction, and follows it through suspend, resume and savepoints: the JDBC side
 * of the thread's {@link HeldLocks registry} on the blocking stack, whatever the driver.
 * It answers two questions without SQL:
 * <ul>
 * <li>does the current transaction hold a key ({@code isHeld}), the guard against a call
 * that bypassed the proxy;</li>
 * <li>is a key asked for held by a transaction of this thread that is suspended
 * ({@code REQUIRES_NEW}, {@code NOT_SUPPORTED})? Such a call can never get the key, since
 * the holder resumes only after the call has returned: without this, it would wait for
 * itself until its timeout, or skip as if another instance held it.</li>
 * </ul>
 *
 * <p>
 * Bound to the transaction as a resource, like Spring's own resource holders; suspended,
 * its record moves to the registry's stack of the thread, and back when the transaction
 * resumes. Keys are recorded on the innermost resource (a JDBC {@code DataSource}) and
 * the holder of the connection they were taken on. Internal: used by the driver adapters,
 * not API.
 *
 * @author advisory-lock authors
 */
public final class TransactionLockSynchronization implements TransactionSynchronization {

	/** The key of the current transaction's record among its resources. */
	private static final Object RESOURCE = new Object();

	private final TransactionLockRecord record = new TransactionLockRecord();

	private TransactionLockSynchronization() {
	}

	/**
	 * Record keys the current transaction now holds; nothing when it has no
	 * synchronization to follow it with.
	 * @param mode the mode they were taken in
	 * @param keys the keys
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
	 * @param key the key
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
