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

package io.github.advisorylock.core.session;

import java.util.ArrayList;
import java.util.List;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.core.LockKeys;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The invocation-scoped sessions enclosing a subscriber, kept in its Reactor context as
 * {@link HeldLocks} keeps a thread's, for nested calls, fenced writes and
 * {@code checkHeld()}. Loaded only for reactive calls.
 *
 * @author advisory-lock authors
 */
public final class ReactiveHeldLocks {

	private static final Object HELD = ReactiveHeldLocks.class.getName() + ".held";

	private ReactiveHeldLocks() {
	}

	/** Return the sessions enclosing a subscriber, the innermost last. */
	@SuppressWarnings("unchecked")
	public static List<HeldSession> enclosing(ContextView context) {
		return context.getOrDefault(HELD, List.of());
	}

	/**
	 * Return the context of the work of a session, which it encloses.
	 * @param context the context of the work
	 * @param enclosing the sessions that enclose the call
	 * @param session the call's own session
	 * @return the context with the session innermost
	 */
	public static Context holding(Context context, List<HeldSession> enclosing, HeldSession session) {
		List<HeldSession> held = new ArrayList<>(enclosing);
		held.add(session);
		return context.put(HELD, List.copyOf(held));
	}

	/**
	 * Check the locks the subscriber's enclosing invocation-scoped calls hold.
	 * @return completes when none was lost; a {@code LockLostException} otherwise
	 */
	public static Mono<Void> checkHeld() {
		return Mono.deferContextual((context) -> {
			enclosing(context).forEach(HeldSession::checkHeld);
			return Mono.empty();
		});
	}

	/**
	 * Return the fencing token of the subscriber's innermost invocation-scoped call.
	 * @return the token; an {@link IllegalStateException} when no call encloses it
	 */
	public static Mono<Long> fencingToken() {
		return Mono.deferContextual((context) -> {
			List<HeldSession> enclosing = enclosing(context);
			if (enclosing.isEmpty()) {
				return Mono.error(new IllegalStateException("fencingToken() found no invocation-scoped advisory lock "
						+ "enclosing its subscriber: subscribe to it inside the publisher of an execute call with "
						+ "scope = LockScope.INVOCATION (a transaction-scoped lock has no fencing token)"));
			}
			return ((ReactiveLockSession) enclosing.get(enclosing.size() - 1)).fencingTokenMono();
		});
	}

	/**
	 * Return whether an enclosing invocation-scoped call of the subscriber holds a key.
	 * @param resource the connection factory it must be held on, or {@code null} for any
	 * @return whether one does
	 */
	public static boolean holds(ContextView context, long key, @Nullable Object resource) {
		return HeldLocks.holdsInvocation(enclosing(context), key, resource);
	}

	/**
	 * Return the keys of a call that the subscriber's enclosing calls do not hold yet.
	 * @param keys its keys
	 * @param resource the connection factory the call locks on
	 * @return the keys still to acquire
	 */
	public static LockKeys notHeld(ContextView context, LockRequest request, LockKeys keys, @Nullable Object resource) {
		return HeldLocks.notHeld(enclosing(context), request, keys, () -> resource);
	}

}
