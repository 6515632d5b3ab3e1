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
package io.github.advisorylock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.HeldLock;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * A ShedLock {@link ExtensibleLockProvider} that takes invocation-scoped PostgreSQL
 * advisory locks instead of leasing rows: {@code @SchedulerLock(name = "x")} locks the
 * key {@code 'x'} of the namespace {@value #DEFAULT_NAMESPACE} (or the one given), the
 * same lock as {@code @AdvisoryLocked(namespace = "shedlock", key = "'x'", scope =
 * INVOCATION, waitMode = SKIP)}. A lock held elsewhere returns empty at once: the run is
 * skipped, as ShedLock's other providers do.
 *
 * <p>
 * Each held lock is a session of its own ({@link AdvisoryLockOperations#acquire}), one of
 * {@code advisory-lock.invocation.max-connections}, which PostgreSQL releases when the
 * holder dies or stops answering for three heartbeats, whatever {@code lockAtMostFor}
 * says. Within that, {@code lockAtMostFor} (even while the job runs) and
 * {@code lockAtLeastFor} (after an early unlock) hold as ShedLock defines them, kept by
 * this process: a holder that dies releases at once, and a frozen one keeps the lock
 * until the dead-man switch. A name this provider holds or is taking returns empty
 * without asking the database, so that threads racing for it take one connection, not one
 * each. {@link #close()} releases the locks still held (docs/migrating.md, "ShedLock").
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockProvider implements ExtensibleLockProvider, AutoCloseable {

	/** The namespace of the locks when none is given. */
	public static final String DEFAULT_NAMESPACE = "shedlock";

	private static final Log logger = LogFactory.getLog(AdvisoryLockProvider.class);

	private final AdvisoryLockOperations locks;

	private final String namespace;

	/** The names held or being taken, each until its lock is released. */
	private final Map<String, Claim> claims = new ConcurrentHashMap<>();

	/** Releases locks at lockAtMostFor, and at lockAtLeastFor after an early unlock. */
	private final ScheduledThreadPoolExecutor scheduler;

	private volatile boolean closed;

	/**
	 * Create a provider whose locks are in the namespace {@value #DEFAULT_NAMESPACE}.
	 * @param locks what takes the locks, an implementation of
	 * {@link AdvisoryLockOperations#acquire} such as {@code AdvisoryLockTemplate}
	 */
	public AdvisoryLockProvider(AdvisoryLockOperations locks) {
		this(locks, DEFAULT_NAMESPACE);
	}

	/**
	 * Create a provider whose locks are in the given namespace.
	 * @param locks what takes the locks, an implementation of
	 * {@link AdvisoryLockOperations#acquire} such as {@code AdvisoryLockTemplate}
	 * @param namespace the namespace of the locks, each lock name a key in it
	 */
	public AdvisoryLockProvider(AdvisoryLockOperations locks, String namespace) {
		Assert.notNull(locks, "AdvisoryLockOperations must not be null");
		Assert.hasText(namespace, "Namespace must not be blank");
		this.locks = locks;
		this.namespace = namespace;
		CustomizableThreadFactory threads = new CustomizableThreadFactory("advisory-lock-shedlock-");
		threads.setDaemon(true);
		this.scheduler = new ScheduledThreadPoolExecutor(1, threads);
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	/** Return the namespace of the locks. */
	public String getNamespace() {
		return this.namespace;
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		Assert.state(!this.closed, () -> "ShedLock lock '" + configuration.getName() + "' was asked for after its "
				+ "AdvisoryLockProvider was closed (the application is shutting down)");
		String name = configuration.getName();
		Claim claim = new Claim(name);
		for (Claim existing = this.claims.putIfAbsent(name, claim); existing != null; existing = this.claims
			.putIfAbsent(name, claim)) {
			if (!existing.awaitReleased()) {
				return Optional.empty();
			}
		}
		Optional<HeldLock> held;
		try {
			held = this.locks.acquire(
					LockRequest.of(this.namespace, name).withScope(LockScope.INVOCATION).withWaitMode(WaitMode.SKIP));
		}
		catch (RuntimeException ex) {
			this.claims.remove(name, claim);
			throw ex;
		}
		if (held.isEmpty()) {
			this.claims.remove(name, claim);
			return Optional.empty();
		}
		claim.hold(held.get(), configuration.getLockAtMostUntil());
		return Optional.of(new AdvisoryShedLock(configuration, claim));
	}

	/**
	 * Release the locks still held and stop releasing them on time.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.scheduler.shutdownNow();
		this.claims.values().forEach(Claim::release);
	}

	/**
	 * A name held by this provider: its lock, and the task that releases it on time.
	 * Synchronized, so that a lock reported released is free in the database.
	 */
	private final class Claim {

		private final String name;

		private @Nullable HeldLock lock;

		private @Nullable ScheduledFuture<?> scheduled;

		/** Counts the release times set, so that a superseded task does nothing. */
		private long generation;

		private boolean released;

		private Instant lockAtMostUntil = Instant.MAX;

		Claim(String name) {
			this.name = name;
		}

		synchronized void hold(HeldLock lock, Instant lockAtMostUntil) {
			this.lock = lock;
			if (this.released) {
				// The provider was closed while the lock was taken.
				lock.release();
				return;
			}
			this.lockAtMostUntil = lockAtMostUntil;
			releaseAt(lockAtMostUntil, true);
		}

		/** Unlock now, or at lockAtLeastUntil if it is still to come. */
		synchronized void unlock(LockConfiguration configuration) {
			Instant lockAtLeastUntil = configuration.getLockAtLeastUntil();
			Instant until = lockAtLeastUntil.isBefore(this.lockAtMostUntil) ? lockAtLeastUntil : this.lockAtMostUntil;
			if (!this.released && ClockProvider.now().isBefore(until)) {
				releaseAt(until, false);
			}
			else {
				release();
			}
		}

		/**
		 * Extend to a new lockAtMostUntil, unless the lock has expired or was lost.
		 * @return whether it was
		 */
		synchronized boolean extend(LockConfiguration configuration) {
			HeldLock lock = this.lock;
			if (this.released || lock == null || lock.isLost() || !ClockProvider.now().isBefore(this.lockAtMostUntil)) {
				release();
				return false;
			}
			this.lockAtMostUntil = configuration.getLockAtMostUntil();
			releaseAt(this.lockAtMostUntil, true);
			return true;
		}

		private void releaseAt(Instant at, boolean whileRunning) {
			ScheduledFuture<?> previous = this.scheduled;
			if (previous != null) {
				previous.cancel(false);
			}
			long generation = ++this.generation;
			long delay = Duration.between(ClockProvider.now(), at).toMillis();
			if (delay <= 0) {
				release();
				return;
			}
			this.scheduled = AdvisoryLockProvider.this.scheduler.schedule(() -> releaseOnTime(generation, whileRunning),
					delay, TimeUnit.MILLISECONDS);
		}

		private synchronized void releaseOnTime(long generation, boolean whileRunning) {
			if (generation != this.generation || this.released) {
				return;
			}
			if (whileRunning) {
				logger.warn("ShedLock lock '" + this.name + "' reached its lockAtMostFor while its task runs: released "
						+ "as ShedLock defines it, and another instance may run the task now. Give it a longer "
						+ "lockAtMostFor, or extend the lock");
			}
			release();
		}

		/**
		 * Wait until a release in progress has ended, so that a name the database has let
		 * go is not refused while this claim is being removed (a run skipped for no
		 * reason).
		 * @return whether this claim is released, and the name free of it
		 */
		synchronized boolean awaitReleased() {
			return this.released;
		}

		/** Release the lock now, once, and free the name. */
		synchronized void release() {
			if (this.released) {
				return;
			}
			this.released = true;
			ScheduledFuture<?> scheduled = this.scheduled;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
			HeldLock lock = this.lock;
			try {
				if (lock != null) {
					lock.release();
				}
			}
			finally {
				AdvisoryLockProvider.this.claims.remove(this.name, this);
			}
		}

	}

	/** The lock ShedLock holds: a new one per extension, all on the name's claim. */
	private static final class AdvisoryShedLock extends AbstractSimpleLock {

		private final Claim claim;

		AdvisoryShedLock(LockConfiguration configuration, Claim claim) {
			super(configuration);
			this.claim = claim;
		}

		@Override
		protected void doUnlock() {
			this.claim.unlock(this.lockConfiguration);
		}

		@Override
		protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
			return this.claim.extend(newConfiguration) ? Optional.of(new AdvisoryShedLock(newConfiguration, this.claim))
					: Optional.empty();
		}

	}

}
