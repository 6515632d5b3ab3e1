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

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of what {@link LockAcquisitionListener}s are told of invocation-scoped
 * acquisitions: each outcome, with the failure for a timeout and an error, and the end of
 * the locks.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class InvocationScopeListenerTests {

	private final Recording listener = new Recording();

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(2).withLockSettings((locks) -> {
		// No test here waits for a heartbeat, and a loaded machine must not make a lock
		// look lost (dead-man switch) before its call releases it.
		locks.setHeartbeat(Duration.ofHours(1));
		locks.setListeners(List.of(this.listener));
	});

	private final DataSource pool = this.fixture.dataSource();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	private final String namespace = "heard-" + UUID.randomUUID();

	private LockRequest invocation(Object... keys) {
		return LockRequest.of(this.namespace, keys).withScope(LockScope.INVOCATION);
	}

	private LockHolder holding(Object value) {
		return LockHolder.exclusive(TestDatabase.get().dataSource(), AdvisoryLockKeys.of(this.namespace, value));
	}

	@Test
	void acquiredThenReleasedWhenTheCallReturns() {
		this.locks.execute(invocation(1), (handle) -> null);
		assertThat(this.listener.heard).containsExactly(new Heard(Outcome.ACQUIRED, null), Heard.RELEASED);
	}

	@Test
	void skipThatFindsTheLockHeldIsToldSkipped() {
		try (LockHolder holder = holding(1)) {
			assertThat(this.locks.execute(invocation(1).withWaitMode(WaitMode.SKIP), (handle) -> "ran").executed())
				.isFalse();
		}
		assertThat(this.listener.heard).containsExactly(new Heard(Outcome.SKIPPED, null));
	}

	@Test
	void tryThatFindsTheLockHeldIsToldBusy() {
		try (LockHolder holder = holding(1)) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.locks.execute(invocation(1).withWaitMode(WaitMode.TRY), (handle) -> "ran"));
		}
		assertThat(this.listener.heard).containsExactly(new Heard(Outcome.BUSY, null));
	}

	@Test
	void blockThatRunsOutOfTimeIsToldTimeoutWithTheDriversFailure() {
		try (LockHolder holder = holding(1)) {
			assertThatExceptionOfType(LockBusyException.class).isThrownBy(
					() -> this.locks.execute(invocation(1).withTimeout(Duration.ofMillis(50)), (handle) -> "ran"));
		}
		assertThat(this.listener.heard).singleElement().satisfies((heard) -> {
			assertThat(heard.outcome()).isEqualTo(Outcome.TIMEOUT);
			assertThat(heard.error()).isInstanceOf(SQLException.class);
		});
	}

	@Test
	void callInsideAnEarlierTransactionIsToldErrorWithTheRefusal() {
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.pool));
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> transaction.execute((status) -> this.locks.execute(invocation(1), (handle) -> "ran")));
		assertThat(this.listener.heard).singleElement().satisfies((heard) -> {
			assertThat(heard.outcome()).isEqualTo(Outcome.ERROR);
			assertThat(heard.error()).isInstanceOf(LockTransactionException.class);
		});
	}

	@Test
	void callThatFindsEveryLockConnectionTakenIsToldErrorWithTheBound() {
		this.locks.setMaxInvocationConnections(1);
		this.locks.execute(invocation(1), (outer) -> {
			assertThatExceptionOfType(CannotGetJdbcConnectionException.class)
				.isThrownBy(() -> this.locks.execute(invocation(2), (inner) -> "ran"));
			return null;
		});
		assertThat(this.listener.heard).hasSize(3).element(1).satisfies((heard) -> {
			assertThat(heard.outcome()).isEqualTo(Outcome.ERROR);
			assertThat(heard.error()).isInstanceOf(CannotGetJdbcConnectionException.class);
		});
	}

	/**
	 * What a listener heard: an outcome and its failure, or the end of held locks
	 * ({@code null} outcome).
	 */
	record Heard(@Nullable Outcome outcome, @Nullable Throwable error) {

		static final Heard RELEASED = new Heard(null, null);

		static final Heard LOST = new Heard(null, new IllegalStateException("lost"));

	}

	static final class Recording implements LockAcquisitionListener {

		final List<Heard> heard = new CopyOnWriteArrayList<>();

		@Override
		public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode,
				List<Long> keys, List<String> values) {
			return new Acquisition() {

				@Override
				public void finished(Outcome outcome, @Nullable Throwable error) {
					Recording.this.heard.add(new Heard(outcome, error));
				}

				@Override
				public void released(boolean lost) {
					Recording.this.heard.add(lost ? Heard.LOST : Heard.RELEASED);
				}

			};
		}

	}

}
