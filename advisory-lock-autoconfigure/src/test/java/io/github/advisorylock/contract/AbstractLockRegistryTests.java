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

package io.github.advisorylock.contract;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.integration.AdvisoryLockRegistry;
import io.github.advisorylock.integration.FencedLock;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ApplicationEvent;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The contract of {@link AdvisoryLockRegistry}, Spring Integration's {@code LockRegistry}
 * on invocation-scoped advisory locks, from a user's view on the real database: the
 * {@link Lock} semantics Spring Integration's registries promise (their
 * {@code JdbcLockRegistryTests} scenarios), waits seen in {@code pg_locks}, a lost lock
 * reported at {@code unlock()} as {@code JdbcLockRegistry} reports it, and
 * {@code LockRegistryLeaderInitiator} over it. Two registries, each on a template of its
 * own, play two instances of an application. Each subclass gives the application's data
 * source: direct, or through PgBouncer.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
abstract class AbstractLockRegistryTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	private final String namespace = "si-" + UUID.randomUUID();

	private final String key = "key-" + UUID.randomUUID();

	private final long advisoryKey = AdvisoryLockKeys.of(this.namespace, this.key);

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	/** The fencing token each leader read when it was granted, by candidate id. */
	private final Map<String, Long> epochs = new ConcurrentHashMap<>();

	/** The lock sessions of the first instance found lost by its heartbeat. */
	private final CountDownLatch firstLost = new CountDownLatch(1);

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private @Nullable AdvisoryLockTemplate firstTemplate;

	private @Nullable AdvisoryLockTemplate secondTemplate;

	private @Nullable AdvisoryLockRegistry first;

	private @Nullable AdvisoryLockRegistry second;

	/**
	 * Return the application's pool the locks' connections are derived from.
	 * @return the pool
	 */
	protected abstract DataSource dataSource();

	@BeforeEach
	void createRegistries() {
		this.firstTemplate = template();
		this.firstTemplate.setListeners(
				List.of((namespace, scope, mode, waitMode, keys, values) -> new LockAcquisitionListener.Acquisition() {

					@Override
					public void finished(LockAcquisitionListener.Outcome outcome, @Nullable Throwable error) {
					}

					@Override
					public void released(boolean lost) {
						if (lost) {
							AbstractLockRegistryTests.this.firstLost.countDown();
						}
					}

				}));
		this.secondTemplate = template();
		this.first = new AdvisoryLockRegistry(this.firstTemplate, this.namespace);
		this.second = new AdvisoryLockRegistry(this.secondTemplate, this.namespace);
	}

	private AdvisoryLockTemplate template() {
		AdvisoryLockTemplate template = new AdvisoryLockTemplate(dataSource());
		// Short enough that a terminated session is found lost soon, long enough that a
		// loaded machine never misses three in a row (the dead-man switch would end a
		// held lock).
		template.setHeartbeat(Duration.ofSeconds(5));
		return template;
	}

	@AfterEach
	void closeTemplates() throws Exception {
		// Neither exists where the data source was not there (PgBouncer not installed).
		if (this.firstTemplate != null) {
			this.firstTemplate.close();
		}
		if (this.secondTemplate != null) {
			this.secondTemplate.close();
		}
	}

	private AdvisoryLockRegistry first() {
		AdvisoryLockRegistry first = this.first;
		assertThat(first).isNotNull();
		return first;
	}

	private AdvisoryLockRegistry second() {
		AdvisoryLockRegistry second = this.second;
		assertThat(second).isNotNull();
		return second;
	}

	private List<PgLocks.AdvisoryLock> granted() {
		return this.pgLocks.on(this.advisoryKey).stream().filter(PgLocks.AdvisoryLock::granted).toList();
	}

	private static <T> T result(Future<T> future) throws Exception {
		return future.get(HANG_SECONDS, TimeUnit.SECONDS);
	}

	private static Throwable failureOf(Future<?> future) throws Exception {
		try {
			result(future);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		throw new AssertionError("expected the call to fail");
	}

	/**
	 * Hold the key through a registry on another thread until {@code release} is counted
	 * down.
	 */
	private Future<Void> holdElsewhere(AdvisoryLockRegistry registry, CountDownLatch release) throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		Future<Void> holder = this.threads.submit(() -> {
			Lock lock = registry.obtain(this.key);
			lock.lock();
			try {
				held.countDown();
				TestThreads.await(release);
			}
			finally {
				lock.unlock();
			}
			return null;
		});
		await().atMost(PgLocks.HANG_TIMEOUT).until(() -> held.getCount() == 0 || holder.isDone());
		if (holder.isDone()) {
			result(holder);
		}
		return holder;
	}

	@Test
	void aLockHeldByOneInstanceMakesTheOtherWaitInPostgresqlUntilItIsUnlocked() throws Exception {
		Lock lock = first().obtain(this.key);
		lock.lock();
		int holder = this.pgLocks.holderPid(this.advisoryKey);
		CountDownLatch release = new CountDownLatch(1);
		Future<Integer> waiter = this.threads.submit(() -> {
			Lock other = second().obtain(this.key);
			other.lock();
			try {
				int pid = this.pgLocks.holderPid(this.advisoryKey);
				TestThreads.await(release);
				return pid;
			}
			finally {
				other.unlock();
			}
		});
		// The other instance waits inside PostgreSQL, not in a polling loop.
		this.pgLocks.awaitWaiters(this.advisoryKey, 1);
		assertThat(waiter).isNotDone();
		lock.unlock();
		this.pgLocks.await("the waiter granted", (locks) -> granted().size() == 1 && granted().get(0).pid() != holder);
		release.countDown();
		assertThat(result(waiter)).isNotEqualTo(holder);
		assertThat(granted()).isEmpty();
	}

	@Test
	void closingTheOtherInstancesTemplateEndsItsWaitingLockWithTheShutdownRatherThanWaitingOn() throws Exception {
		Lock lock = first().obtain(this.key);
		lock.lock();
		try {
			Future<?> waiter = this.threads.submit(() -> second().obtain(this.key).lock());
			this.pgLocks.awaitWaiters(this.advisoryKey, 1);
			this.secondTemplate.close();
			// lock() waits on through every busy timeout; the shutdown ends it.
			assertThat(waiter).failsWithin(PgLocks.HANG_TIMEOUT)
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(CannotAcquireLockException.class)
				.withMessageContaining("the application is shutting down");
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void obtainReturnsTheSameLockForTheSameKey() {
		assertThat(first().obtain(this.key)).isSameAs(first().obtain(this.key));
		assertThat(first().obtain(this.key)).isNotSameAs(first().obtain("other-" + this.key));
	}

	@Test
	void keysOfTheSameTextAreOneLockAndKeysWithoutAPortableTextAreRefused() {
		UUID uuid = UUID.randomUUID();
		assertThat(first().obtain(uuid)).isSameAs(first().obtain(uuid.toString()));
		assertThat(first().obtain(42L)).isSameAs(first().obtain("42"));
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> first().obtain(1.5));
	}

	@Test
	void eachHoldOfTheLockHasAFencingTokenGreaterThanTheEarlierHoldsOnEitherInstance() throws Exception {
		FencedLock lock = first().obtain(this.key);
		assertThatIllegalStateException().isThrownBy(lock::fencingToken).withMessageContaining("lock it first");
		lock.lock();
		long firstHold = lock.fencingToken();
		// Any thread of the process reads the current hold's token.
		assertThat(this.threads.submit(lock::fencingToken).get(HANG_SECONDS, TimeUnit.SECONDS)).isEqualTo(firstHold);
		lock.unlock();
		long otherInstance = this.threads.submit(() -> {
			FencedLock other = second().obtain(this.key);
			other.lock();
			try {
				return other.fencingToken();
			}
			finally {
				other.unlock();
			}
		}).get(HANG_SECONDS, TimeUnit.SECONDS);
		lock.lock();
		long thirdHold = lock.fencingToken();
		lock.unlock();
		assertThat(otherInstance).isGreaterThan(firstHold);
		assertThat(thirdHold).isGreaterThan(otherInstance);
	}

	@Test
	void theLockIsReentrantPerThreadAndTakenOnceInTheDatabase() throws Exception {
		Lock lock = first().obtain(this.key);
		lock.lock();
		lock.lockInterruptibly();
		assertThat(lock.tryLock()).isTrue();
		assertThat(this.pgLocks.on(this.advisoryKey)).hasSize(1);
		lock.unlock();
		lock.unlock();
		assertThat(granted()).as("held until the last unlock").hasSize(1);
		assertThat(this.threads.submit(() -> second().obtain(this.key).tryLock()).get(HANG_SECONDS, TimeUnit.SECONDS))
			.isFalse();
		lock.unlock();
		assertThat(granted()).isEmpty();
	}

	@Test
	void tryLockFailsAtOnceWhileTheKeyIsHeldAndSucceedsOnceItIsFree() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		Future<Void> holder = holdElsewhere(second(), release);
		Lock lock = first().obtain(this.key);
		assertThat(lock.tryLock()).isFalse();
		assertThat(this.pgLocks.on(this.advisoryKey)).as("no waiter left behind").hasSize(1);
		release.countDown();
		result(holder);
		assertThat(lock.tryLock()).isTrue();
		assertThat(granted()).hasSize(1);
		lock.unlock();
	}

	@Test
	void tryLockWithATimeWaitsInPostgresqlAndIsGrantedOnUnlock() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		Future<Void> holder = holdElsewhere(second(), release);
		Future<Boolean> waiter = this.threads.submit(() -> {
			Lock lock = first().obtain(this.key);
			boolean acquired = lock.tryLock(HANG_SECONDS, TimeUnit.SECONDS);
			if (acquired) {
				lock.unlock();
			}
			return acquired;
		});
		this.pgLocks.awaitWaiters(this.advisoryKey, 1);
		release.countDown();
		result(holder);
		assertThat(result(waiter)).isTrue();
	}

	@Test
	void tryLockWithATimeReturnsFalseOnceTheTimeHasPassed() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		Future<Void> holder = holdElsewhere(second(), release);
		Lock lock = first().obtain(this.key);
		assertThat(lock.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(this.pgLocks.on(this.advisoryKey)).as("no waiter left behind").hasSize(1);
		release.countDown();
		result(holder);
		// Not held locally either: another thread of this instance takes it.
		assertThat(result(this.threads.submit(() -> {
			boolean acquired = lock.tryLock();
			lock.unlock();
			return acquired;
		}))).isTrue();
	}

	@Test
	void onlyTheOwnerUnlocks() throws Exception {
		Lock lock = first().obtain(this.key);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		lock.lock();
		Throwable other = failureOf(this.threads.submit(() -> {
			assertThat(lock.tryLock()).as("another thread of this instance").isFalse();
			lock.unlock();
			return null;
		}));
		assertThat(other).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(this.key);
		assertThat(granted()).hasSize(1);
		lock.unlock();
		assertThat(granted()).isEmpty();
	}

	@Test
	void conditionsAreRefused() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> first().obtain(this.key).newCondition());
	}

	@Test
	void aLockLostWhileHeldIsReportedAtUnlockAsSpringIntegrationsRegistriesReportIt() throws Exception {
		Lock lock = first().obtain(this.key);
		lock.lock();
		// Until its backend has exited, the session still holds the key.
		this.pgLocks.terminateHolderOf(this.advisoryKey);
		TestThreads.await(this.firstLost);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock)
			.withMessageContaining(this.key)
			.withMessageContaining("integrity of data protected by this lock may have been compromised");
		// The local state is released: the lock can be taken again, here and elsewhere.
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		assertThat(result(this.threads.submit(() -> {
			Lock other = second().obtain(this.key);
			boolean acquired = other.tryLock();
			other.unlock();
			return acquired;
		}))).isTrue();
	}

	@Test
	void aReentrantTryLockOnALostLockFailsAndVoidsTheHolds() throws Exception {
		Lock lock = first().obtain(this.key);
		lock.lock();
		// Until its backend has exited, the session still holds the key.
		this.pgLocks.terminateHolderOf(this.advisoryKey);
		TestThreads.await(this.firstLost);
		assertThat(lock.tryLock()).as("re-entrant on a lost lock").isFalse();
		// The hold taken before the loss is void: its unlock reports the loss.
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(lock.tryLock()).as("a fresh acquisition").isTrue();
		assertThat(granted()).hasSize(1);
		lock.unlock();
	}

	@Test
	void aReentrantTryLockAsksTheDatabaseSoASessionThatEndedFailsItBeforeAnyHeartbeat() throws Exception {
		try (AdvisoryLockTemplate template = templateWithoutHeartbeats()) {
			Lock lock = new AdvisoryLockRegistry(template, this.namespace).obtain(this.key);
			lock.lock();
			assertThat(lock.tryLock(1, TimeUnit.SECONDS)).as("re-entrant while its session holds it").isTrue();
			lock.unlock();
			this.pgLocks.terminateHolderOf(this.advisoryKey);
			assertThat(lock.tryLock()).as("re-entrant once its session ended, no heartbeat since").isFalse();
			assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		}
	}

	@Test
	void aReentrantLockOnASessionThatEndedThrowsTheLossBeforeAnyHeartbeat() throws Exception {
		try (AdvisoryLockTemplate template = templateWithoutHeartbeats()) {
			Lock lock = new AdvisoryLockRegistry(template, this.namespace).obtain(this.key);
			lock.lock();
			this.pgLocks.terminateHolderOf(this.advisoryKey);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lock);
			assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		}
	}

	/**
	 * The initiator asks its re-entrant {@code tryLock} whether it still leads at each of
	 * its own heartbeats: a leader whose session ended is revoked then, while the lock's
	 * heartbeat (an hour here) has not run.
	 */
	@Test
	void aLeaderWhoseSessionEndedIsRevokedAtTheInitiatorsNextCheckNotAtTheLocksNextHeartbeat() throws Exception {
		try (AdvisoryLockTemplate template = templateWithoutHeartbeats()) {
			Queue<ApplicationEvent> events = new ConcurrentLinkedQueue<>();
			LockRegistryLeaderInitiator initiator = initiator(new AdvisoryLockRegistry(template, this.namespace),
					"only", events);
			try {
				initiator.start();
				// Granted, and its candidate's onGranted, which reads its epoch, has
				// returned.
				await().atMost(PgLocks.HANG_TIMEOUT)
					.until(() -> events.stream().anyMatch(OnGrantedEvent.class::isInstance));
				this.pgLocks.terminateHolderOf(this.advisoryKey);
				await().atMost(PgLocks.HANG_TIMEOUT)
					.until(() -> events.stream().anyMatch(OnRevokedEvent.class::isInstance));
			}
			finally {
				initiator.stop();
			}
		}
		this.pgLocks.await("the leader lock released", (locks) -> granted().isEmpty());
	}

	/**
	 * A template whose heartbeat never runs within a test: only a confirmation can find a
	 * session that ended.
	 */
	private AdvisoryLockTemplate templateWithoutHeartbeats() {
		AdvisoryLockTemplate template = new AdvisoryLockTemplate(dataSource());
		template.setHeartbeat(Duration.ofHours(1));
		return template;
	}

	@Test
	void interruptingAThreadQueuedBehindAnotherOfTheSameInstanceEndsItsLockInterruptiblyAtOnce() throws Exception {
		Lock lock = first().obtain(this.key);
		lock.lock();
		AtomicReference<@Nullable Throwable> outcome = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				lock.lockInterruptibly();
				lock.unlock();
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
		});
		waiter.start();
		await().atMost(PgLocks.HANG_TIMEOUT).until(() -> waiter.getState() == Thread.State.WAITING);
		waiter.interrupt();
		waiter.join(PgLocks.HANG_TIMEOUT.toMillis());
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		lock.unlock();
	}

	@Test
	void aLockInterruptiblyInterruptedWhileWaitingInPostgresqlThrowsAndHoldsNothing() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		Future<Void> holder = holdElsewhere(second(), release);
		Lock lock = first().obtain(this.key);
		AtomicReference<@Nullable Throwable> outcome = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				lock.lockInterruptibly();
				lock.unlock();
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
		});
		waiter.start();
		this.pgLocks.awaitWaiters(this.advisoryKey, 1);
		waiter.interrupt();
		// The wait inside PostgreSQL ends when the holder lets go (the JDBC driver's
		// read ignores interrupts); the interrupted call then gives the lock back.
		release.countDown();
		result(holder);
		waiter.join(PgLocks.HANG_TIMEOUT.toMillis());
		assertThat(waiter.isAlive()).isFalse();
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		assertThat(granted()).isEmpty();
		assertThat(lock.tryLock()).as("not held locally either").isTrue();
		lock.unlock();
	}

	@Test
	void expiringUnusedLocksKeepsTheHeldOnes() {
		Lock held = first().obtain(this.key);
		Lock unused = first().obtain("other-" + this.key);
		held.lock();
		try {
			first().expireUnusedOlderThan(0);
			assertThat(first().obtain(this.key)).isSameAs(held);
			assertThat(first().obtain("other-" + this.key)).isNotSameAs(unused);
		}
		finally {
			held.unlock();
		}
	}

	@Test
	void leaderElectionGrantsOneLeaderAndMovesToTheOtherWhenTheLeadersSessionEnds() throws Exception {
		Queue<ApplicationEvent> firstEvents = new ConcurrentLinkedQueue<>();
		Queue<ApplicationEvent> secondEvents = new ConcurrentLinkedQueue<>();
		LockRegistryLeaderInitiator firstInitiator = initiator(first(), "first", firstEvents);
		LockRegistryLeaderInitiator secondInitiator = initiator(second(), "second", secondEvents);
		try {
			firstInitiator.start();
			secondInitiator.start();
			await().atMost(PgLocks.HANG_TIMEOUT)
				.until(() -> firstInitiator.getContext().isLeader() || secondInitiator.getContext().isLeader());
			boolean firstLeads = firstInitiator.getContext().isLeader();
			LockRegistryLeaderInitiator leader = firstLeads ? firstInitiator : secondInitiator;
			LockRegistryLeaderInitiator follower = firstLeads ? secondInitiator : firstInitiator;
			Queue<ApplicationEvent> leaderEvents = firstLeads ? firstEvents : secondEvents;
			Queue<ApplicationEvent> followerEvents = firstLeads ? secondEvents : firstEvents;
			// The follower waits inside PostgreSQL, one tryLock after another.
			this.pgLocks.awaitWaiters(this.advisoryKey, 1);
			assertThat(follower.getContext().isLeader()).isFalse();
			assertThat(granted()).hasSize(1);
			// Published once the candidate's onGranted, which reads its epoch, has
			// returned.
			await().atMost(PgLocks.HANG_TIMEOUT).until(() -> !leaderEvents.isEmpty());
			assertThat(leaderEvents).hasExactlyElementsOfTypes(OnGrantedEvent.class);
			this.pgLocks.terminateHolderOf(this.advisoryKey);
			await().atMost(PgLocks.HANG_TIMEOUT)
				.until(() -> followerEvents.stream().anyMatch(OnGrantedEvent.class::isInstance));
			await().atMost(PgLocks.HANG_TIMEOUT)
				.until(() -> leaderEvents.stream().anyMatch(OnRevokedEvent.class::isInstance));
			assertThat(follower.getContext().isLeader()).isTrue();
			// Each leader read its epoch when granted: the new one's is greater.
			assertThat(this.epochs.get(firstLeads ? "second" : "first"))
				.isGreaterThan(this.epochs.get(firstLeads ? "first" : "second"));
			assertThat(granted()).hasSize(1);
		}
		finally {
			firstInitiator.stop();
			secondInitiator.stop();
		}
		this.pgLocks.await("the leader lock released", (locks) -> granted().isEmpty());
	}

	private LockRegistryLeaderInitiator initiator(AdvisoryLockRegistry registry, String id,
			Queue<ApplicationEvent> events) {
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry,
				new DefaultCandidate(id, this.key) {

					@Override
					public void onGranted(Context context) {
						super.onGranted(context);
						AbstractLockRegistryTests.this.epochs.put(id,
								registry.obtain(AbstractLockRegistryTests.this.key).fencingToken());
					}

				});
		// Its re-entrant tryLock confirms within this time: long enough that a busy
		// machine answers, so that a leader is revoked only when its session ended.
		initiator.setHeartBeatMillis(1000);
		initiator.setBusyWaitMillis(20);
		initiator.setLeaderEventPublisher(new DefaultLeaderEventPublisher((event) -> {
			if (event instanceof ApplicationEvent applicationEvent) {
				events.add(applicationEvent);
			}
		}));
		return initiator;
	}

}
