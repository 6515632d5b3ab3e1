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

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.session.HeldLocks;
import io.github.advisorylock.core.session.HeldSession;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import org.jspecify.annotations.Nullable;

/**
 * The keys of a transaction-scoped call that enclosing invocation-scoped sessions hold,
 * which make its transaction a fenced write: it takes each key's fence and checks, in the
 * same round trip, that each session still holds its key (docs/decisions.md, "Fenced
 * writes"). What the check finds becomes the call's failure here, for both stacks.
 *
 * @param keys the fenced keys, sorted
 * @param sessions the enclosing session of each key, in the same order
 * @param idleTimeout the shortest of their dead-man switches, which bounds the fenced
 * transaction's idle time, so that a holder paused in it delays the next no longer
 * @author advisory-lock authors
 */
public record FencedKeys(LockKeys keys, List<HeldSession> sessions, Duration idleTimeout) {

	/**
	 * Return the keys of a call that enclosing sessions hold.
	 * @param enclosing the invocation-scoped locks enclosing the call
	 * @param requested the call's keys
	 * @param notHeld those no enclosing lock holds
	 * @param resource what the call locks on
	 * @return the fenced keys, or {@code null} when no enclosing session holds one
	 */
	public static @Nullable FencedKeys of(Collection<? extends HeldSession> enclosing, LockRequest request,
			LockKeys requested, LockKeys notHeld, Object resource) {
		List<HeldSession> sessions = new ArrayList<>();
		List<Long> keys = new ArrayList<>();
		List<String> values = new ArrayList<>();
		for (int i = 0; i < requested.keys().size(); i++) {
			long key = requested.keys().get(i);
			HeldSession session = notHeld.keys().contains(key) ? null
					: HeldLocks.holder(enclosing, key, request, resource);
			if (session != null) {
				sessions.add(session);
				keys.add(key);
				values.add(requested.values().get(i));
			}
		}
		if (sessions.isEmpty()) {
			return null;
		}
		Duration idleTimeout = sessions.stream().map(HeldSession::deadMan).min(Duration::compareTo).orElseThrow();
		return new FencedKeys(new LockKeys(List.copyOf(keys), List.copyOf(values)), List.copyOf(sessions), idleTimeout);
	}

	/**
	 * Return the failure of a fenced write whose check found a key no longer held, after
	 * telling the listeners. A session its call released is no loss (a task outlived the
	 * call); any other is marked lost now, before its next heartbeat.
	 * @param lostKey the key found no longer held
	 * @param acquisition the listeners' view of the fenced write
	 */
	public RuntimeException lost(long lostKey, LockRequest request, Acquisition acquisition) {
		int index = this.keys.keys().indexOf(lostKey);
		HeldSession session = this.sessions.get(index);
		if (session.isReleased()) {
			IllegalStateException released = LockFailures.releasedBeforeFencedWrite(session.description());
			acquisition.finished(Outcome.ERROR, released);
			return released;
		}
		IllegalStateException cause = new IllegalStateException("a fenced write found that the lock's session no "
				+ "longer holds key " + lostKey + " (its transaction, and the marker it held, ended)");
		session.lost(cause, "a fenced write found that its session no longer holds the key");
		LockLostException lost = new LockLostException(request.namespace(), List.of(this.keys.values().get(index)),
				cause);
		acquisition.lost(lost);
		return lost;
	}

	/**
	 * Refuse a fenced write in another database than its enclosing sessions: a marker is
	 * seen only in its own database, so elsewhere every fenced write would be a loss.
	 * @param database the writer's database, as the fence statement names it
	 * @param markers the sessions' markers
	 * @throws LockTransactionException if a session is in another database
	 */
	public static void checkSameDatabase(String database, List<SessionMarker> markers, LockRequest request) {
		for (SessionMarker marker : markers) {
			if (!database.equals(marker.database())) {
				throw LockFailures.refused(request,
						"A fenced write of advisory lock namespace '" + request.namespace() + "' runs in database '"
								+ database + "', and the invocation-scoped lock it is fenced by is " + "in '"
								+ marker.database() + "': a fence works only with the lock and the writes in the "
								+ "same database. Give invocation-scoped locks a DataSource of that database");
			}
		}
	}

}
