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

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a {@link LockAcquisitionListener} that throws, against its contract, neither
 * breaks the call nor keeps the other listeners from hearing about it.
 */
@ExtendWith({ NoAdvisoryLocksLeft.class, OutputCaptureExtension.class })
class LockAcquisitionListenersTests {

	private final DataSource dataSource = TestDatabase.get().dataSource();

	private final PgLocks pgLocks = new PgLocks(this.dataSource);

	private final TransactionTemplate transaction = new TransactionTemplate(
			new DataSourceTransactionManager(this.dataSource));

	private final String namespace = "listeners-" + UUID.randomUUID();

	private final Recording first = new Recording();

	private final Recording last = new Recording();

	private AdvisoryLockTemplate template(LockAcquisitionListener... listeners) {
		AdvisoryLockTemplate template = new AdvisoryLockTemplate(this.dataSource);
		template.setListeners(List.of(listeners));
		return template;
	}

	@Test
	void listenerThrowingWhenStartingNeitherFailsTheLockNorSilencesTheOthers(CapturedOutput output) {
		AdvisoryLockTemplate locks = template(this.first, new LogsOnceAtWarn(), this.last);
		long key = AdvisoryLockKeys.of(this.namespace, 1);
		for (int call = 0; call < 2; call++) {
			this.transaction.executeWithoutResult((status) -> {
				locks.lock(this.namespace, 1);
				assertThat(this.pgLocks.on(key)).singleElement()
					.satisfies((lock) -> assertThat(lock.granted()).isTrue());
			});
		}
		assertThat(this.first.outcomes).containsExactly(Outcome.ACQUIRED, Outcome.ACQUIRED);
		assertThat(this.last.outcomes).containsExactly(Outcome.ACQUIRED, Outcome.ACQUIRED);
		// At WARN once per listener class, however often it throws.
		assertThat(output.getOut()
			.lines()
			.filter((line) -> line.contains(
					LogsOnceAtWarn.class.getName() + " threw in starting for advisory lock '" + this.namespace + "'"))
			.filter((line) -> line.contains("reported once per listener class"))).singleElement()
			.asString()
			.contains("WARN");
	}

	@Test
	void listenerThrowingWhenTheLockIsAcquiredDoesNotTurnTheHeldLockIntoAFailure() {
		AdvisoryLockTemplate locks = template(new ThrowsWhenFinished(), this.last);
		long key = AdvisoryLockKeys.of(this.namespace, 2);
		this.transaction.executeWithoutResult((status) -> {
			locks.lock(this.namespace, 2);
			assertThat(this.pgLocks.on(key)).singleElement().satisfies((lock) -> assertThat(lock.granted()).isTrue());
		});
		assertThat(this.last.outcomes).containsExactly(Outcome.ACQUIRED);
	}

	@Test
	void listenerThrowingOnABusyTryStillLetsTheCallAnswerFalse() {
		AdvisoryLockTemplate locks = template(new ThrowsWhenFinished(), new ThrowsWhenStarting(), this.last);
		try (LockHolder holder = LockHolder.exclusive(this.dataSource, AdvisoryLockKeys.of(this.namespace, 3))) {
			Boolean acquired = this.transaction.execute((status) -> locks.tryLock(this.namespace, 3));
			assertThat(acquired).isFalse();
		}
		assertThat(this.last.outcomes).containsExactly(Outcome.BUSY);
	}

	static final class Recording implements LockAcquisitionListener {

		final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

		@Override
		public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode,
				List<Long> keys, List<String> values) {
			return (outcome, error) -> this.outcomes.add(outcome);
		}

	}

	static final class ThrowsWhenStarting implements LockAcquisitionListener {

		@Override
		public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode,
				List<Long> keys, List<String> values) {
			throw new IllegalStateException("broken listener");
		}

	}

	/** Used by one test only: its class is reported at WARN the first time. */
	static final class LogsOnceAtWarn implements LockAcquisitionListener {

		@Override
		public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode,
				List<Long> keys, List<String> values) {
			throw new IllegalStateException("broken listener");
		}

	}

	static final class ThrowsWhenFinished implements LockAcquisitionListener {

		@Override
		public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode,
				List<Long> keys, List<String> values) {
			return (outcome, error) -> {
				throw new IllegalStateException("broken listener");
			};
		}

	}

}
