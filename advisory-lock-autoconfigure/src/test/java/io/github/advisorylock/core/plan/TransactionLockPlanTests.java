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

package io.github.advisorylock.core.plan;

import java.util.List;

import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.session.HeldSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What {@link TransactionLockPlan} decides from what an executor found, without a
 * database: which keys a transaction-scoped call tries, which it fences, and which slot
 * of a limit serves it.
 */
class TransactionLockPlanTests {

	private static final Object DATABASE = new Object();

	private static final Object OTHER_DATABASE = new Object();

	private static final LockRequest REQUEST = LockRequest.of("orders", "a", "b");

	private static final LockKeys KEYS = new LockKeys(List.of(1L, 2L), List.of("a", "b"));

	private final EnclosingSessions sessions = new EnclosingSessions();

	@AfterEach
	void releaseSessions() {
		this.sessions.releaseAll();
	}

	@Test
	void withoutAnEnclosingCallEveryKeyIsTriedAndNoneFenced() {
		TransactionLockPlan plan = TransactionLockPlan.of(REQUEST, KEYS, List.of(), null, true);
		assertThat(plan.keys()).isEqualTo(KEYS);
		assertThat(plan.fence()).isNull();
		assertThat(plan.slots()).isNull();
	}

	@Test
	void aKeyAnEnclosingCallHoldsIsNotTriedAgainAndIsFencedInATransaction() {
		HeldSession enclosing = session(LockMode.EXCLUSIVE, DATABASE, 1L);
		TransactionLockPlan plan = TransactionLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE, true);
		assertThat(plan.keys().keys()).containsExactly(2L);
		assertThat(plan.fence()).isNotNull();
		assertThat(plan.fence().keys().keys()).containsExactly(1L);
		assertThat(plan.fence().sessions()).containsExactly(enclosing);
		assertThat(plan.fence().idleTimeout()).isEqualTo(enclosing.deadMan());
	}

	@Test
	void outsideATransactionAKeyAnEnclosingCallHoldsIsNeitherTriedNorFenced() {
		HeldSession enclosing = session(LockMode.EXCLUSIVE, DATABASE, 1L);
		TransactionLockPlan plan = TransactionLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE, false);
		assertThat(plan.keys().keys()).containsExactly(2L);
		assertThat(plan.fence()).isNull();
	}

	@Test
	void whenEnclosingCallsHoldEveryKeyNoneIsTried() {
		HeldSession enclosing = session(LockMode.EXCLUSIVE, DATABASE, 1L, 2L);
		TransactionLockPlan plan = TransactionLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE, true);
		assertThat(plan.keys().keys()).isEmpty();
		assertThat(plan.fence().keys()).isEqualTo(KEYS);
	}

	@Test
	void aKeyHeldOnAnotherDatabaseIsTried() {
		HeldSession enclosing = session(LockMode.EXCLUSIVE, OTHER_DATABASE, 1L);
		TransactionLockPlan plan = TransactionLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE, true);
		assertThat(plan.keys()).isEqualTo(KEYS);
		assertThat(plan.fence()).isNull();
	}

	@Test
	void aLimitsCallIsServedByTheSlotAnEnclosingCallHolds() {
		LockRequest limited = LockRequest.of("exports", "tenant-1").withPermits(3);
		LockKeys key = new LockKeys(List.of(7L), List.of("tenant-1"));
		long secondSlot = PermitSlots.of(limited, key).slots().get(1);
		HeldSession enclosing = session(LockMode.EXCLUSIVE, DATABASE, secondSlot);
		TransactionLockPlan plan = TransactionLockPlan.of(limited, key, List.of(enclosing), DATABASE, true);
		assertThat(plan.slots().slots()).hasSize(3).contains(secondSlot);
		assertThat(plan.keys().keys()).isEmpty();
		assertThat(plan.fence().keys().keys()).containsExactly(secondSlot);
	}

	@Test
	void aLimitsCallWithoutAnEnclosingOneAsksForAPermit() {
		LockRequest limited = LockRequest.of("exports", "tenant-1").withPermits(3);
		LockKeys key = new LockKeys(List.of(7L), List.of("tenant-1"));
		TransactionLockPlan plan = TransactionLockPlan.of(limited, key, List.of(), null, true);
		assertThat(plan.slots().slots()).hasSize(3);
		assertThat(plan.keys()).isEqualTo(key);
		assertThat(plan.fence()).isNull();
	}

	@Test
	void anExclusiveCallInsideASharedOneOfTheSameKeyIsRefused() {
		HeldSession enclosing = session(LockMode.SHARED, DATABASE, 1L);
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> TransactionLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE, true))
			.withMessageContaining("held SHARED by an enclosing invocation-scoped call")
			.withMessageContaining("Take it EXCLUSIVE in the enclosing call");
	}

	@Test
	void aLostEnclosingLockFailsTheCallBeforeAnyStatement() {
		HeldSession enclosing = session(LockMode.EXCLUSIVE, DATABASE, 1L);
		enclosing.lost(new IllegalStateException("connection reset"), "its heartbeat failed");
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> TransactionLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE, true));
	}

	private HeldSession session(LockMode mode, Object database, Long... keys) {
		return this.sessions.holding(mode, database, keys);
	}

}
