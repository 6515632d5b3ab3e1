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
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.session.HeldLocks;
import io.github.advisorylock.core.session.HeldSession;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link io.github.advisorylock.LockScope#INVOCATION invocation-scoped} request
 * asks of its lock session, decided without I/O before any connection is taken: not the
 * keys enclosing calls hold already (they hold them for longer), and for a limit, not a
 * second permit where an enclosing call holds a slot. A call whose enclosing calls hold
 * every key is re-entrant and runs with no session of its own.
 *
 * @param keys the keys to take; none when enclosing calls hold every one
 * @param slots the slots of a limit, or {@code null} for a plain lock
 * @author advisory-lock authors
 */
public record InvocationLockPlan(LockKeys keys, @Nullable PermitSlots slots) {

	/**
	 * Decide what a call asks for.
	 * @param request the request, of invocation scope
	 * @param requested its keys
	 * @param enclosing the invocation-scoped locks enclosing the call, innermost last;
	 * none for locks bound to no call
	 * @param target what the locks of the call's database are known by
	 * @throws io.github.advisorylock.LockLostException if an enclosing holder was lost
	 * @throws io.github.advisorylock.LockTransactionException if the call asks EXCLUSIVE
	 * for a key an enclosing call holds SHARED
	 */
	public static InvocationLockPlan of(LockRequest request, LockKeys requested,
			Collection<? extends HeldSession> enclosing, Object target) {
		PermitSlots slots = (request.permits() > 1) ? PermitSlots.of(request, requested) : null;
		if (enclosing.isEmpty()) {
			return new InvocationLockPlan(requested, slots);
		}
		LockKeys asked = (slots != null)
				? slots.heldOr(requested, (slot) -> HeldLocks.holdsInvocation(enclosing, slot, target)) : requested;
		return new InvocationLockPlan(HeldLocks.notHeld(enclosing, request, asked, () -> target), slots);
	}

}
