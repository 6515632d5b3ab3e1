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
package io.github.advisorylock.integration;

import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.HeldLock;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;

import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.util.Assert;

/**
 * A Spring Integration {@code LockRegistry} on invocation-scoped PostgreSQL advisory
 * locks, in place of {@code JdbcLockRegistry} and its {@code INT_LOCK} table: the lock of
 * {@code obtain("x")} is the key {@code 'x'} of the namespace {@value #DEFAULT_NAMESPACE}
 * (or the one given), the same lock as {@code @AdvisoryLocked(namespace =
 * "spring-integration", key = "'x'", scope = INVOCATION)}. A key is a value
 * {@link AdvisoryLockKeys} takes: a {@link CharSequence}, a {@link java.util.UUID}, an
 * integral number or an enum; values with the same text are the same lock.
 *
 * <p>
 * Each lock is a re-entrant {@link Lock} as Spring Integration's registries give: threads
 * of this process queue on a local {@link ReentrantLock} per key, and the owner's first
 * entry takes the advisory lock ({@link AdvisoryLockOperations#acquire}) that its last
 * exit releases. {@link Lock#lock()}, {@link Lock#lockInterruptibly()} and
 * {@link Lock#tryLock(long, TimeUnit)} wait inside PostgreSQL, without polling. Only the
 * owner unlocks ({@link IllegalMonitorStateException} otherwise);
 * {@link Lock#newCondition()} is refused. An interrupt ends a wait behind a local thread
 * at once, but not one inside PostgreSQL (the driver's socket read ignores it): an
 * interrupted {@code lockInterruptibly} or timed {@code tryLock} gives the granted lock
 * straight back and throws {@link InterruptedException}.
 *
 * <p>
 * A re-entrant acquisition first confirms the lock with the database
 * ({@link HeldLock#confirmHeld}, within a timed {@code tryLock}'s time, at least 100 ms;
 * no answer counts as lost), so that {@code LockRegistryLeaderInitiator}'s periodic
 * re-entrant {@code tryLock} finds an ended session at that check, not at the lock's next
 * heartbeat. A lost lock is reported as {@code JdbcLockRegistry} reports an expired row:
 * the outermost {@code unlock()} throws {@link ConcurrentModificationException} caused by
 * the {@link LockLostException}. A re-entrant acquisition on a lost lock voids the
 * thread's holds: {@code tryLock} returns {@code false} (so that the initiator revokes
 * the leadership), {@code lock} and {@code lockInterruptibly} throw the
 * {@link LockLostException}, and each unlock still owed throws
 * {@link ConcurrentModificationException}.
 *
 * <p>
 * Each held lock, and each acquisition waiting in PostgreSQL, takes one of
 * {@code advisory-lock.invocation.max-connections} (docs/migrating.md, "Spring
 * Integration").
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
// Raw: LockRegistry is generic on Spring Integration 7, and one class serves 6.5 too.
@SuppressWarnings("rawtypes")
public class AdvisoryLockRegistry implements ExpirableLockRegistry {

	/** The namespace of the locks when none is given. */
	public static final String DEFAULT_NAMESPACE = "spring-integration";

	private final AdvisoryLockOperations locks;

	private final String namespace;

	/** The locks obtained, by the text of their key. */
	private final Map<String, RegistryLock> registry = new ConcurrentHashMap<>();

	/**
	 * Create a registry whose locks are in the namespace {@value #DEFAULT_NAMESPACE}.
	 * @param locks what takes the locks, an implementation of
	 * {@link AdvisoryLockOperations#acquire} such as {@code AdvisoryLockTemplate}
	 */
	public AdvisoryLockRegistry(AdvisoryLockOperations locks) {
		this(locks, DEFAULT_NAMESPACE);
	}

	/**
	 * Create a registry whose locks are in the given namespace.
	 * @param locks what takes the locks, an implementation of
	 * {@link AdvisoryLockOperations#acquire} such as {@code AdvisoryLockTemplate}
	 * @param namespace the namespace of the locks, each lock key a key in it
	 */
	public AdvisoryLockRegistry(AdvisoryLockOperations locks, String namespace) {
		Assert.notNull(locks, "AdvisoryLockOperations must not be null");
		// The request's own checks, at startup rather than at the first lock.
		LockRequest.of(namespace, "");
		this.locks = locks;
		this.namespace = namespace;
	}

	/** Return the namespace of the locks. */
	public String getNamespace() {
		return this.namespace;
	}

	/**
	 * Return the lock of a key: the same instance for every key of the same text, until
	 * it is {@linkplain #expireUnusedOlderThan expired} unused.
	 * @param lockKey the key: a {@link CharSequence}, {@link java.util.UUID}, integral
	 * number or enum
	 * @return its lock, with the {@linkplain FencedLock#fencingToken() fencing token} of
	 * its current hold
	 * @throws io.github.advisorylock.InvalidLockKeyException if the key is of another
	 * type
	 */
	@Override
	public FencedLock obtain(Object lockKey) {
		Assert.notNull(lockKey, "Lock key must not be null");
		String text = AdvisoryLockKeys.text(lockKey);
		long now = System.currentTimeMillis();
		// Stamped inside the map's own lock, so that an expiry sees the stamp.
		return this.registry.compute(text, (key, existing) -> {
			RegistryLock lock = (existing != null) ? existing : new RegistryLock(this.locks, this.namespace, key);
			lock.lastUsed = now;
			return lock;
		});
	}

	/**
	 * Forget the locks no thread holds or waits for and none obtained for the given time,
	 * so that a registry of many keys does not grow without bound.
	 * @param age the time since a lock was last obtained, in milliseconds
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.currentTimeMillis();
		// Decided under the map's lock of each key, so that a lock just obtained stays.
		this.registry.keySet()
			.forEach((key) -> this.registry.computeIfPresent(key,
					(text, lock) -> (now - lock.lastUsed >= age && lock.isUnused()) ? null : lock));
	}

}
