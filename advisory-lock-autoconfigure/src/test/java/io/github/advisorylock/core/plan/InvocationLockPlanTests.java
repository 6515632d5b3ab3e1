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

import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.session.HeldSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What {@link InvocationLockPlan} decides from what an executor found, without a
 * database: which keys an invocation-scoped call's session takes, when the call is
 * re-entrant, and which slot of a limit serves it.
 */
class InvocationLockPlanTests {

	private static final Object DATABASE = new Object();

	private static final Object OTHER_DATABASE = new Object();

	private static final LockRequest REQUEST = LockRequest.of("orders", "a", "b").withScope(LockScope.INVOCATION);

	private static final LockKeys KEYS = new LockKeys(List.of(1L, 2L), List.of("a", "b"));

	private final EnclosingSessions sessions = new EnclosingSessions();

	@AfterEach
	void releaseSessions() {
		this.sessions.releaseAll();
	}

	@Test
	void withoutAnEnclosingCallEveryKeyIsTaken() {
		InvocationLockPlan plan = InvocationLockPlan.of(REQUEST, KEYS, List.of(), DATABASE);
		assertThat(plan.keys()).isEqualTo(KEYS);
		assertThat(plan.slots()).isNull();
	}

	@Test
	void aKeyAnEnclosingCallHoldsIsNotTakenAgain() {
		HeldSession enclosing = this.sessions.holding(LockMode.EXCLUSIVE, DATABASE, 1L);
		InvocationLockPlan plan = InvocationLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE);
		assertThat(plan.keys().keys()).containsExactly(2L);
		assertThat(plan.keys().values()).containsExactly("b");
	}

	@Test
	void whenEnclosingCallsHoldEveryKeyTheCallTakesNone() {
		HeldSession outer = this.sessions.holding(LockMode.EXCLUSIVE, DATABASE, 1L);
		HeldSession inner = this.sessions.holding(LockMode.SHARED, DATABASE, 2L);
		LockRequest shared = REQUEST.withMode(LockMode.SHARED);
		InvocationLockPlan plan = InvocationLockPlan.of(shared, KEYS, List.of(outer, inner), DATABASE);
		assertThat(plan.keys().keys()).isEmpty();
	}

	@Test
	void aKeyHeldOnAnotherDatabaseIsTaken() {
		HeldSession enclosing = this.sessions.holding(LockMode.EXCLUSIVE, OTHER_DATABASE, 1L);
		InvocationLockPlan plan = InvocationLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE);
		assertThat(plan.keys()).isEqualTo(KEYS);
	}

	@Test
	void aLimitsCallIsServedByTheSlotAnEnclosingCallHolds() {
		LockRequest limited = LockRequest.of("exports", "tenant-1").withScope(LockScope.INVOCATION).withPermits(2);
		LockKeys key = new LockKeys(List.of(7L), List.of("tenant-1"));
		long lastSlot = PermitSlots.of(limited, key).slots().get(1);
		HeldSession enclosing = this.sessions.holding(LockMode.EXCLUSIVE, DATABASE, lastSlot);
		InvocationLockPlan plan = InvocationLockPlan.of(limited, key, List.of(enclosing), DATABASE);
		assertThat(plan.slots().slots()).hasSize(2).contains(lastSlot);
		assertThat(plan.keys().keys()).isEmpty();
	}

	@Test
	void aLimitOnSeveralKeysIsRefusedNamingThem() {
		LockRequest limited = REQUEST.withPermits(2);
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> InvocationLockPlan.of(limited, KEYS, List.of(), DATABASE))
			.withMessageContaining("permits = 2")
			.withMessageContaining("names 2 distinct keys");
	}

	@Test
	void anExclusiveCallInsideASharedOneOfTheSameKeyIsRefused() {
		HeldSession enclosing = this.sessions.holding(LockMode.SHARED, DATABASE, 1L);
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> InvocationLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE))
			.withMessageContaining("held SHARED by an enclosing invocation-scoped call");
	}

	@Test
	void aLostEnclosingLockFailsTheCallBeforeAnyConnectionIsTaken() {
		HeldSession enclosing = this.sessions.holding(LockMode.EXCLUSIVE, DATABASE, 1L);
		enclosing.lost(new IllegalStateException("connection reset"), "its heartbeat failed");
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> InvocationLockPlan.of(REQUEST, KEYS, List.of(enclosing), DATABASE));
	}

}
