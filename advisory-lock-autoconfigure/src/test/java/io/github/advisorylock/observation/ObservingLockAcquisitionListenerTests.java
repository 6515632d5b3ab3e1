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

package io.github.advisorylock.observation;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ObservingLockAcquisitionListener}: the meters and observations of real
 * locks. Its auto-configuration is tested in
 * {@code io.github.advisorylock.autoconfigure.AdvisoryLockObservationAutoConfigurationTests}.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class ObservingLockAcquisitionListenerTests {

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final ObservationRegistry observations = ObservationRegistry.create();

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.on(TestDatabase.get().dataSource())
		.withLockSettings(
				(locks) -> locks.setListeners(List.of(new ObservingLockAcquisitionListener(this.observations))));

	private final DataSource dataSource = this.fixture.dataSource();

	private final TransactionTemplate transaction = this.fixture.transaction();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	private final String namespace = "observed-" + UUID.randomUUID();

	ObservingLockAcquisitionListenerTests() {
		this.observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(this.meters));
	}

	private Timer acquireTimer(String waitMode, String outcome) {
		return this.meters.get(ObservingLockAcquisitionListener.ACQUIRE)
			.tags("namespace", this.namespace, "mode", "exclusive", "wait.mode", waitMode, "outcome", outcome)
			.timer();
	}

	@Test
	void recordsAcquiredBusyTimeoutAndErrorOutcomesWithTheirTags() {
		this.transaction.executeWithoutResult((status) -> this.locks.lock(this.namespace, 1));
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, AdvisoryLockKeys.of(this.namespace, 2))) {
			this.transaction
				.executeWithoutResult((status) -> assertThat(this.locks.tryLock(this.namespace, 2)).isFalse());
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> this.transaction.executeWithoutResult(
					(status) -> this.locks.lock(LockRequest.of(this.namespace, 2).withWaitMode(WaitMode.TRY))));
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> this.transaction.executeWithoutResult(
					(status) -> this.locks.lock(LockRequest.of(this.namespace, 2).withTimeout(Duration.ofMillis(50)))));
		}
		assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> this.locks.lock(this.namespace, 3));

		assertThat(acquireTimer("block", "acquired").count()).isOne();
		assertThat(acquireTimer("try", "busy").count()).isEqualTo(2);
		assertThat(acquireTimer("block", "timeout").count()).isOne();
		assertThat(acquireTimer("block", "error").count()).isOne();
		assertThat(this.meters.get(ObservingLockAcquisitionListener.ACQUIRE).timers())
			.extracting((timer) -> timer.getId().getTag("error"))
			.containsOnly("none", "LockTransactionException");
	}

	@Test
	void tagsTheScopeAndRecordsSkippedAcquisitionsAndInvocationLocksReleasedOrLost() throws Exception {
		HikariDataSource pool = TestDatabase.get().newDataSource(2);
		try (pool; AdvisoryLockTemplate invocationLocks = new AdvisoryLockTemplate(pool)) {
			// Soon finds the terminated session lost; never misses three in a row (the
			// dead-man switch would count the first lock lost) when the machine is
			// loaded.
			invocationLocks.setHeartbeat(Duration.ofSeconds(5));
			invocationLocks.setListeners(List.of(new ObservingLockAcquisitionListener(this.observations)));
			LockRequest invocation = LockRequest.of(this.namespace, "job").withScope(LockScope.INVOCATION);
			invocationLocks.execute(invocation, (handle) -> {
				assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD + ".active")
					.tags("namespace", this.namespace, "scope", "invocation")
					.longTaskTimer()
					.activeTasks()).isOne();
				return null;
			});
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> invocationLocks.execute(invocation, (handle) -> {
					new PgLocks(this.dataSource).terminateHolderOf(AdvisoryLockKeys.of(this.namespace, "job"));
					await().atMost(Duration.ofSeconds(30)).until(handle::isLost);
					return null;
				}));
			try (LockHolder holder = LockHolder.exclusive(this.dataSource,
					AdvisoryLockKeys.of(this.namespace, "job"))) {
				assertThat(invocationLocks.execute(invocation.withWaitMode(WaitMode.SKIP), (handle) -> true).executed())
					.isFalse();
			}
		}
		assertThat(this.meters.get(ObservingLockAcquisitionListener.ACQUIRE)
			.tags("namespace", this.namespace, "scope", "invocation", "wait.mode", "skip", "outcome", "skipped")
			.timer()
			.count()).isOne();
		assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD)
			.tags("namespace", this.namespace, "scope", "invocation", "outcome", "released")
			.timer()
			.count()).isOne();
		assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD)
			.tags("namespace", this.namespace, "scope", "invocation", "outcome", "lost")
			.timer()
			.count()).isOne();
		assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD + ".active").longTaskTimer().activeTasks())
			.isZero();
	}

	@Test
	void tagsFencedWritesAndCountsARefusedOneAsLost() throws Exception {
		HikariDataSource pool = TestDatabase.get().newDataSource(2);
		try (pool; AdvisoryLockTemplate invocationLocks = new AdvisoryLockTemplate(pool)) {
			// No heartbeat notices the loss: only the fenced write does.
			invocationLocks.setHeartbeat(Duration.ofHours(1));
			invocationLocks.setListeners(List.of(new ObservingLockAcquisitionListener(this.observations)));
			TransactionTemplate writes = new TransactionTemplate(new DataSourceTransactionManager(pool));
			LockRequest invocation = LockRequest.of(this.namespace, "job").withScope(LockScope.INVOCATION);
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> invocationLocks.execute(invocation, (handle) -> {
					writes.executeWithoutResult((status) -> invocationLocks.lock(this.namespace, "job"));
					// Until the backend has exited, its session still holds the key and
					// its
					// marker, and a fenced write is rightly let through.
					new PgLocks(this.dataSource).terminateHolderOf(AdvisoryLockKeys.of(this.namespace, "job"));
					assertThatExceptionOfType(LockLostException.class).isThrownBy(
							() -> writes.executeWithoutResult((status) -> invocationLocks.lock(this.namespace, "job")));
					return null;
				}));
		}
		assertThat(this.meters.get(ObservingLockAcquisitionListener.ACQUIRE)
			.tags("namespace", this.namespace, "scope", "transaction", "fenced", "true", "outcome", "acquired")
			.timer()
			.count()).isOne();
		assertThat(this.meters.get(ObservingLockAcquisitionListener.ACQUIRE)
			.tags("namespace", this.namespace, "scope", "transaction", "fenced", "true", "outcome", "lost")
			.timer()
			.count()).isOne();
		assertThat(this.meters.get(ObservingLockAcquisitionListener.ACQUIRE)
			.tags("namespace", this.namespace, "scope", "invocation", "fenced", "false", "outcome", "acquired")
			.timer()
			.count()).isOne();
		assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD)
			.tags("namespace", this.namespace, "scope", "invocation", "outcome", "lost")
			.timer()
			.count()).isOne();
	}

	@Test
	void recordsHowLongEachLockWasHeldUntilItsTransactionEnded() {
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			// Held, not yet released: the long-task timer shows it.
			assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD + ".active")
				.tags("namespace", this.namespace)
				.longTaskTimer()
				.activeTasks()).isOne();
		});
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			status.setRollbackOnly();
		});
		Timer committed = this.meters.get(ObservingLockAcquisitionListener.HELD)
			.tags("namespace", this.namespace, "mode", "exclusive", "outcome", "committed")
			.timer();
		Timer rolledBack = this.meters.get(ObservingLockAcquisitionListener.HELD)
			.tags("namespace", this.namespace, "mode", "exclusive", "outcome", "rolled_back")
			.timer();
		assertThat(committed.count()).isOne();
		assertThat(rolledBack.count()).isOne();
		assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD + ".active").longTaskTimer().activeTasks())
			.isZero();
	}

	@Test
	void aLockReleasedByARollbackToASavepointEndsThenWithItsOwnOutcome() {
		TransactionTemplate nested = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		this.transaction.executeWithoutResult((status) -> {
			this.locks.lock(this.namespace, 1);
			nested.executeWithoutResult((savepoint) -> {
				this.locks.lock(this.namespace, 2);
				savepoint.setRollbackOnly();
			});
			// Released while the transaction goes on: no longer counted as held.
			assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD)
				.tags("namespace", this.namespace, "outcome", "rolled_back_to_savepoint")
				.timer()
				.count()).isOne();
			assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD + ".active")
				.tags("namespace", this.namespace)
				.longTaskTimer()
				.activeTasks()).as("the lock taken before the savepoint").isOne();
			// A nested call that completes keeps its lock to the end of the transaction.
			nested.executeWithoutResult((savepoint) -> this.locks.lock(this.namespace, 3));
		});
		assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD)
			.tags("namespace", this.namespace, "outcome", "committed")
			.timer()
			.count()).isEqualTo(2);
		assertThat(this.meters.get(ObservingLockAcquisitionListener.HELD)
			.tags("namespace", this.namespace, "outcome", "rolled_back_to_savepoint")
			.timer()
			.count()).isOne();
	}

	@Test
	void neverTagsAKeyOrAValue() {
		this.transaction.executeWithoutResult((status) -> this.locks.lock(this.namespace, "user-4711"));
		String key = Long.toString(AdvisoryLockKeys.of(this.namespace, "user-4711"));
		assertThat(this.meters.getMeters()).flatExtracting((Meter meter) -> meter.getId().getTags())
			.extracting(Tag::getValue)
			.isNotEmpty()
			.noneMatch((value) -> value.contains("4711") || value.equals(key));
	}

	@Test
	void observationsCarryTheConventionalNamesAndLowCardinalityKeys() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		AdvisoryLockTemplate observed = new AdvisoryLockTemplate(this.dataSource);
		observed.setListeners(List.of(new ObservingLockAcquisitionListener(registry)));
		this.transaction.executeWithoutResult((status) -> observed.lock(this.namespace, 1));
		TestObservationRegistryAssert.assertThat(registry)
			.hasObservationWithNameEqualTo("advisory.lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("namespace", this.namespace)
			.hasLowCardinalityKeyValue("mode", "exclusive")
			.hasLowCardinalityKeyValue("permits", "1")
			.hasLowCardinalityKeyValue("wait.mode", "block")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.doesNotHaveHighCardinalityKeyValueWithKey("key")
			.doesNotHaveHighCardinalityKeyValueWithKey("permit")
			.hasBeenStarted()
			.hasBeenStopped();
		TestObservationRegistryAssert.assertThat(registry)
			.hasObservationWithNameEqualTo("advisory.lock.held")
			.that()
			.hasLowCardinalityKeyValue("outcome", "committed")
			.hasBeenStopped();
	}

	@Test
	void aLimitIsTaggedWithItsPermitsAndItsAcquisitionTellsThePermitTaken() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		AdvisoryLockTemplate observed = new AdvisoryLockTemplate(this.dataSource);
		observed.setListeners(List.of(new ObservingLockAcquisitionListener(registry)));
		// Permit 0 is the limit's key: held elsewhere, so the call takes permit 1.
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, AdvisoryLockKeys.of(this.namespace, "tenant"))) {
			this.transaction.executeWithoutResult(
					(status) -> observed.lock(LockRequest.of(this.namespace, "tenant").withPermits(3)));
		}
		TestObservationRegistryAssert.assertThat(registry)
			.hasObservationWithNameEqualTo("advisory.lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("namespace", this.namespace)
			.hasLowCardinalityKeyValue("permits", "3")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasHighCardinalityKeyValue("permit", "1")
			.hasBeenStopped();
		TestObservationRegistryAssert.assertThat(registry)
			.hasObservationWithNameEqualTo("advisory.lock.held")
			.that()
			.hasLowCardinalityKeyValue("permits", "3")
			.hasLowCardinalityKeyValue("outcome", "committed")
			.hasBeenStopped();
	}

}
