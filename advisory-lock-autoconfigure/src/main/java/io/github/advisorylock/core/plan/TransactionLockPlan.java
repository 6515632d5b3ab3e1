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

import java.util.Collection;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.session.HeldLocks;
import io.github.advisorylock.core.session.HeldSession;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.TransactionDefinition;

/**
 * What a {@link io.github.advisorylock.LockScope#TRANSACTION transaction-scoped} request
 * asks of the statements, decided without I/O before any is sent: not the keys enclosing
 * invocation-scoped calls hold, whose session would make this one wait for itself (inside
 * a transaction they are fenced instead), and for a limit, not a second permit where an
 * enclosing call holds a slot. It also refuses a transaction above READ COMMITTED, which
 * no statement could make safe.
 *
 * @param keys the keys to try; none, and no statement sent, when enclosing calls hold all
 * @param slots the slots of a limit, or {@code null} for a plain lock
 * @param fence the keys to fence, with the sessions that hold them, or {@code null}
 * @author advisory-lock authors
 */
public record TransactionLockPlan(LockKeys keys, @Nullable PermitSlots slots, @Nullable FencedKeys fence) {

	/**
	 * Decide what a request asks for.
	 * @param request the request, of transaction scope
	 * @param requested its keys
	 * @param enclosing the invocation-scoped locks enclosing the call, innermost last
	 * @param target what the locks of the call's database are known by, or {@code null}
	 * when unknown (no transaction, several bound, no default); looked up only when a
	 * lock encloses the call
	 * @param inTransaction whether the call runs in an actual transaction
	 * @throws io.github.advisorylock.LockLostException if an enclosing holder was lost
	 * @throws io.github.advisorylock.LockTransactionException if the call asks EXCLUSIVE
	 * for a key an enclosing call holds SHARED
	 */
	public static TransactionLockPlan of(LockRequest request, LockKeys requested,
			Collection<? extends HeldSession> enclosing, @Nullable Object target, boolean inTransaction) {
		if (enclosing.isEmpty() && request.permits() == 1) {
			return new TransactionLockPlan(requested, null, null);
		}
		PermitSlots slots = (request.permits() > 1) ? PermitSlots.of(request, requested) : null;
		LockKeys asked = (slots != null)
				? slots.heldOr(requested, (slot) -> HeldLocks.holdsInvocation(enclosing, slot, target)) : requested;
		LockKeys keys = HeldLocks.notHeld(enclosing, request, asked, () -> target);
		// Outside a transaction there is no write to fence: the call stays re-entrant.
		FencedKeys fence = (keys.keys().size() < asked.keys().size() && inTransaction && target != null)
				? FencedKeys.of(enclosing, request, asked, keys, target) : null;
		return new TransactionLockPlan(keys, slots, fence);
	}

	/**
	 * Refuse a lock in a transaction declared above READ COMMITTED, before any statement.
	 * @param request the call, named in the message
	 * @param declared the declared isolation level, numbered as in
	 * {@link TransactionDefinition} (and JDBC, R2DBC), or {@code null} for the default
	 * @throws LockTransactionException if it is above READ COMMITTED
	 */
	public static void checkReadCommitted(LockRequest request, @Nullable Integer declared) {
		if (declared != null && declared > TransactionDefinition.ISOLATION_READ_COMMITTED) {
			throw LockFailures.isolationRefusal(request, switch (declared) {
				case TransactionDefinition.ISOLATION_REPEATABLE_READ -> "repeatable read";
				case TransactionDefinition.ISOLATION_SERIALIZABLE -> "serializable";
				default -> "isolation level " + declared;
			});
		}
	}

}
