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

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.pglocks.DirectConnectionsRegistry;
import io.github.advisorylock.pglocks.PgLocksHolderDiagnosis;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of a concurrency limit ({@link LockRequest#withPermits}) that only JDBC's
 * template shows: its round trips, the holders its diagnosis names, its refusals, and the
 * slots' derivation against the SQL one. What a limit does on every stack and topology
 * (one slot per call, busy, waiting, timing out, nesting, skipping) is the contract
 * suite's, {@code io.github.advisorylock.contract.AbstractLockContractTests}.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class ConcurrencyLimitTests {

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.newPool(8)
		.withLockSettings((locks) -> locks
			.setHolderDiagnosis(new PgLocksHolderDiagnosis(new DirectConnectionsRegistry(PgLocks.HANG_TIMEOUT))));

	private final PgLocks pgLocks = this.fixture.pgLocks();

	private final TransactionTemplate transaction = this.fixture.transaction();

	private final JdbcTemplate jdbc = this.fixture.jdbc();

	private final AdvisoryLockTemplate locks = this.fixture.locks();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	/** A namespace of its own for each test, so no two tests share a key. */
	private final String namespace = "test-" + UUID.randomUUID();

	private final long key = AdvisoryLockKeys.of(this.namespace, "tenant-1");

	private LockRequest limit(int permits) {
		return LockRequest.of(this.namespace, "tenant-1").withPermits(permits);
	}

	private long slot(int slot) {
		return AdvisoryLockKeys.permitSlot(this.key, slot);
	}

	/** The advisory locks the current transaction's session holds. */
	private List<Long> heldHere() {
		return this.jdbc.queryForList("SELECT " + PgLocks.KEY_EXPRESSION + " FROM pg_locks WHERE locktype = "
				+ "'advisory' AND objsubid = 1 AND granted AND pid = pg_backend_pid()", Long.class);
	}

	@Test
	void aFreePermitIsFoundInOneRoundTripAsAPlainLockIs() {
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), slot(0), slot(1));
				RoundTripCounter counter = new RoundTripCounter()) {
			this.transaction.executeWithoutResult((status) -> {
				counter.reset();
				this.locks.lock(limit(3));
				assertThat(counter.roundTrips()).as("round trips to take the third permit").isOne();
			});
		}
	}

	@Test
	void aTryOfAFullLimitNamesTheHoldersOfEveryPermit() {
		try (LockHolder first = LockHolder.exclusive(TestDatabase.get().dataSource(), slot(0));
				LockHolder second = LockHolder.exclusive(TestDatabase.get().dataSource(), slot(1))) {
			assertThatExceptionOfType(LockBusyException.class)
				.isThrownBy(() -> this.transaction
					.executeWithoutResult((status) -> this.locks.lock(limit(2).withWaitMode(WaitMode.TRY))))
				.satisfies((ex) -> assertThat(ex.getKeys()).containsExactly(slot(0), slot(1)))
				.satisfies((ex) -> assertThat(ex.getHolders()).extracting(LockHolderInfo::pid)
					.containsExactlyInAnyOrder(first.pid(), second.pid()))
				.withMessageContaining("Advisory lock " + this.namespace + ":[tenant-1] (keys [" + slot(0) + ", "
						+ slot(1) + "]) is held")
				.withMessageEndingWith("; all 2 permits of the limit are held");
		}
	}

	@Test
	void listenersHearTheLimitAndWhichPermitItsCallTook() {
		List<String> heard = new CopyOnWriteArrayList<>();
		LockAcquisitionListener limits = new LockAcquisitionListener() {

			@Override
			public Acquisition starting(String namespace, LockScope scope, LockMode mode, WaitMode waitMode,
					List<Long> keys, List<String> values) {
				heard.add("plain " + keys);
				return Acquisition.IGNORED;
			}

			@Override
			public Acquisition startingLimit(String namespace, LockScope scope, WaitMode waitMode, String value,
					List<Long> permitKeys) {
				heard.add("limit " + value + " " + permitKeys);
				return new Acquisition() {

					@Override
					public void permitTaken(int permit) {
						heard.add("permit " + permit);
					}

					@Override
					public void finished(Outcome outcome, @Nullable Throwable error) {
						heard.add(outcome.name());
					}

				};
			}

		};
		// A listener written before limits hears one as a plain lock of its key.
		LockAcquisitionListener olderListener = (namespace, scope, mode, waitMode, keys, values) -> {
			heard.add("older " + mode + " " + keys + " " + values);
			return Acquisition.IGNORED;
		};
		this.locks.setListeners(List.of(limits, olderListener));
		try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(), slot(0))) {
			this.transaction.executeWithoutResult((status) -> this.locks.lock(limit(3)));
			try (LockHolder others = LockHolder.exclusive(TestDatabase.get().dataSource(), slot(1), slot(2))) {
				assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> this.transaction
					.executeWithoutResult((status) -> this.locks.lock(limit(3).withWaitMode(WaitMode.TRY))));
			}
		}
		String limit = "limit tenant-1 " + List.of(slot(0), slot(1), slot(2));
		String older = "older EXCLUSIVE " + List.of(slot(0)) + " [tenant-1]";
		assertThat(heard).containsExactly(limit, older, "permit 1", "ACQUIRED", limit, older, "BUSY");
	}

	@Test
	void theLockIsReleasedWithItsTransaction() throws Exception {
		this.transaction.executeWithoutResult((status) -> this.locks.lock(limit(2)));
		this.transaction.executeWithoutResult((status) -> this.locks.lock(limit(2)));
		assertThat(this.pgLocks.all()).extracting(AdvisoryLock::key).doesNotContain(slot(0), slot(1));
	}

	@Test
	void aLimitOfSeveralKeysIsRefusedBeforeAnyIsTaken() {
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> this.transaction.executeWithoutResult(
					(status) -> this.locks.lock(LockRequest.of(this.namespace, "a", "b").withPermits(2))))
			.withMessageContaining("permits = 2")
			.withMessageContaining("names 2 distinct keys");
	}

	@Test
	void theSlotsAreTheSameInJavaAndInSql() {
		for (long plain : List.of(this.key, 0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE)) {
			for (int slot = 1; slot <= 5; slot++) {
				Long inSql = this.jdbc.queryForObject("SELECT "
						+ AdvisoryLockKeys.SLOT_SQL_EXPRESSION.replace("$1", "?::bigint").replace("$2", "?::integer"),
						Long.class, plain, slot);
				assertThat(inSql).as("slot %d of key %d", slot, plain)
					.isEqualTo(AdvisoryLockKeys.permitSlot(plain, slot));
			}
		}
	}

}
