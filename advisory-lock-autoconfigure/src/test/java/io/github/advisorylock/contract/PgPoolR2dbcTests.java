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
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.contract.PgPoolTopology.Setup;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.PgPool;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of the reactive locks through a real pgpool-II with load balancing on, as
 * {@link PgPoolTests} has them on JDBC (where the reads after a lock, and the startup
 * check, are checked too): where the configuration keeps the library's statements on the
 * primary, the lock is taken there; where it balances them to the standby, the lock is
 * refused with the standby's message and nothing is taken there, or taken on the primary.
 */
@Tag("reactive")
class PgPoolR2dbcTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	@RegisterExtension
	static final PgPoolTopology topology = new PgPoolTopology();

	private final String namespace = "reactive-pgpool-" + UUID.randomUUID();

	private static ConnectionPool through(Setup setup) {
		PgPool pgpool = topology.pgpool(setup);
		return R2dbcConnectionFactories.pool(pgpool.url(), 4,
				(configuration) -> configuration.username(pgpool.user()).password(pgpool.user()));
	}

	/** Read a server's advisory locks off the event loop, as BlockHound requires. */
	private static Mono<List<AdvisoryLock>> locksOn(HikariDataSource server) {
		return Mono.fromCallable(() -> new PgLocks(server).all()).subscribeOn(Schedulers.boundedElastic());
	}

	private long key(Object value) {
		return AdvisoryLockKeys.of(this.namespace, value);
	}

	@ParameterizedTest
	@EnumSource(names = { "DEFAULTS", "SEQUENCES_LISTED", "COMMENTS_IGNORED_LOCKS_LISTED" })
	void aLockIsTakenOnThePrimary(Setup setup) {
		ConnectionPool pool = through(setup);
		R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);
		try {
			TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(pool));
			List<List<AdvisoryLock>> seen = locks.lock(LockRequest.of(this.namespace, 1).withWaitMode(WaitMode.TRY))
				.then(Mono.zip(locksOn(topology.primary()), locksOn(topology.standby()))
					.map((both) -> List.of(both.getT1(), both.getT2())))
				.as(transaction::transactional)
				.block(HANG);
			assertThat(seen).isNotNull();
			assertThat(seen.get(0)).as("locks on the primary").extracting(AdvisoryLock::key).containsExactly(key(1));
			assertThat(seen.get(1)).as("locks on the standby").isEmpty();
			List<AdvisoryLock> inInvocation = locks
				.execute(LockRequest.of(this.namespace, 2).withScope(LockScope.INVOCATION),
						(operations) -> locksOn(topology.primary()))
				.blockLast(HANG);
			assertThat(inInvocation).as("locks on the primary in an invocation-scoped call")
				.extracting(AdvisoryLock::key)
				.contains(key(2));
		}
		finally {
			locks.close();
			pool.dispose();
		}
	}

	@Test
	void whereTheLocksAreBalancedTheyAreRefusedWithTheStandbysMessageOrTakenOnThePrimary() {
		ConnectionPool pool = through(Setup.COMMENTS_IGNORED);
		R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);
		try {
			TransactionalOperator transaction = TransactionalOperator.create(new R2dbcTransactionManager(pool));
			for (WaitMode waitMode : List.of(WaitMode.BLOCK, WaitMode.TRY)) {
				LockRequest request = LockRequest.of(this.namespace, 1)
					.withWaitMode(waitMode)
					.withTimeout((waitMode == WaitMode.BLOCK) ? HANG : null);
				AtomicReference<List<AdvisoryLock>> onTheStandby = new AtomicReference<>();
				assertThatExceptionOfType(LockTransactionException.class).isThrownBy(() -> locks.lock(request)
					// Read before the transaction ends, which would release what the
					// standby granted.
					.onErrorResume(LockTransactionException.class,
							(ex) -> locksOn(topology.standby()).doOnNext(onTheStandby::set).then(Mono.error(ex)))
					.as(transaction::transactional)
					.block(HANG)).withMessageContaining("was asked of a server in recovery");
				assertThat(onTheStandby.get()).as("locks on the standby").isEmpty();
			}
			// An invocation-scoped call opens with one batch of statements in the simple
			// query protocol, which pgpool-II sends to the primary: taken there.
			List<List<AdvisoryLock>> inInvocation = locks
				.execute(LockRequest.of(this.namespace, 1).withScope(LockScope.INVOCATION),
						(operations) -> Mono.zip(locksOn(topology.primary()), locksOn(topology.standby()))
							.map((both) -> List.of(both.getT1(), both.getT2())))
				.blockLast(HANG);
			assertThat(inInvocation).isNotNull();
			assertThat(inInvocation.get(0)).as("locks on the primary").extracting(AdvisoryLock::key).contains(key(1));
			assertThat(inInvocation.get(1)).as("locks on the standby").isEmpty();
		}
		finally {
			locks.close();
			pool.dispose();
		}
	}

}
