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

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * {@link ObservingLockAcquisitionListener} on the reactive stack: the lock's observation
 * is a child of the subscriber's (the request's, which Spring's WebFlux keeps in the
 * Reactor context), and a transaction-scoped lock's held observation ends with its
 * reactive transaction.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class ReactiveObservationTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private static final ConnectionPool pool = R2dbcConnectionFactories.direct(2);

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private final R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);

	private final TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(pool));

	private final String namespace = "reactive-observed-" + UUID.randomUUID();

	@AfterAll
	static void disposePool() {
		pool.dispose();
	}

	@Test
	void theLocksObservationIsAChildOfTheSubscribersAndEndsWithItsTransaction() {
		this.locks.setListeners(List.of(new ObservingLockAcquisitionListener(this.registry)));
		Observation request = Observation.start("http.server.requests", this.registry);
		this.locks.lock(this.namespace, 1)
			.as(this.transaction::transactional)
			.contextWrite((context) -> context.put("micrometer.observation", request))
			.block(HANG);
		request.stop();
		TestObservationRegistryAssert.assertThat(this.registry)
			.hasObservationWithNameEqualTo(ObservingLockAcquisitionListener.ACQUIRE)
			.that()
			.hasParentObservationEqualTo(request)
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasBeenStopped();
		TestObservationRegistryAssert.assertThat(this.registry)
			.hasObservationWithNameEqualTo(ObservingLockAcquisitionListener.HELD)
			.that()
			.hasLowCardinalityKeyValue("outcome", "released")
			.hasBeenStopped();
	}

	@Test
	void withoutASubscribersObservationTheLocksHasNoParent() {
		this.locks.setListeners(List.of(new ObservingLockAcquisitionListener(this.registry)));
		this.locks.lock(this.namespace, 1).as(this.transaction::transactional).block(HANG);
		TestObservationRegistryAssert.assertThat(this.registry)
			.hasObservationWithNameEqualTo(ObservingLockAcquisitionListener.ACQUIRE)
			.that()
			.doesNotHaveParentObservation();
	}

	@Test
	void aLimitsObservationIsTaggedWithItsPermitsAndTellsThePermitTaken() {
		this.locks.setListeners(List.of(new ObservingLockAcquisitionListener(this.registry)));
		// Permit 0 is the limit's key: held elsewhere, so the call takes permit 1.
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
				AdvisoryLockKeys.of(this.namespace, "tenant"))) {
			this.locks.lock(LockRequest.of(this.namespace, "tenant").withPermits(2))
				.as(this.transaction::transactional)
				.block(HANG);
		}
		TestObservationRegistryAssert.assertThat(this.registry)
			.hasObservationWithNameEqualTo(ObservingLockAcquisitionListener.ACQUIRE)
			.that()
			.hasLowCardinalityKeyValue("permits", "2")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasHighCardinalityKeyValue("permit", "1")
			.hasBeenStopped();
		TestObservationRegistryAssert.assertThat(this.registry)
			.hasObservationWithNameEqualTo(ObservingLockAcquisitionListener.HELD)
			.that()
			.hasLowCardinalityKeyValue("permits", "2")
			.hasBeenStopped();
	}

}
