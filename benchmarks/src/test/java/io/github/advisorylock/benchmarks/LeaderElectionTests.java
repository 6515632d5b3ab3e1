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

package io.github.advisorylock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leader election with Spring Integration's {@code LockRegistryLeaderInitiator},
 * unchanged, over {@code AdvisoryLockRegistry}, in three JVMs ({@link LeaderProcess})
 * against one PostgreSQL: one leader at a time, whose lock is the one granted in
 * {@code pg_locks}; a leader killed ({@code SIGKILL}) is followed by another; a leader
 * frozen ({@code SIGSTOP}) is followed by another while it is frozen, by the dead-man
 * switch, and once resumed it is told that it no longer leads ({@code OnRevokedEvent}).
 * Every wait is for a fact (a line of an instance, a row of {@code pg_locks}) and bounded
 * only against a hang.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
@DisabledOnOs(value = OS.WINDOWS, disabledReason = "freezes an instance with kill -STOP")
class LeaderElectionTests {

	private static final String ROLE = "leader";

	/**
	 * Short, so that the frozen leader's session ends soon: three heartbeats, 6 s. Not
	 * shorter: a leader whose heartbeat a loaded machine starves for a few seconds would
	 * lose its lock while nothing is wrong.
	 */
	private static final Duration HEARTBEAT = Duration.ofSeconds(2);

	private final TestDatabase database = TestDatabase.get();

	private final PgLocks pgLocks = new PgLocks(this.database.dataSource());

	private final String namespace = "leader-election-" + UUID.randomUUID();

	private final long key = AdvisoryLockKeys.of(this.namespace, ROLE);

	private final List<LeaderInstance> instances = new ArrayList<>();

	private int started;

	@Test
	void oneLeaderAtATimeAndAnotherWhenTheLeaderIsKilledOrFrozen() throws Exception {
		try {
			for (int i = 0; i < 3; i++) {
				start();
			}
			LeaderInstance first = LeaderInstance.awaitLeader(this.instances);
			// Both followers wait inside PostgreSQL, one tryLock after another.
			this.pgLocks.awaitWaiters(this.key, 2);
			int firstHolder = assertOneLeader(first);

			// SIGKILL: the kernel closes the leader's socket, PostgreSQL ends its session
			// and grants the lock to a waiting follower.
			List<LeaderInstance> followers = others(first);
			int[] marks = marks(followers);
			first.signal("KILL");
			LeaderInstance second = LeaderInstance.awaitGranted(followers, marks).instance();
			first.close();
			this.instances.remove(first);
			int secondHolder = assertOneLeader(second);
			assertThat(secondHolder).as("the new leader's session").isNotEqualTo(firstHolder);

			// Three again: a new instance in place of the killed one.
			start();
			this.pgLocks.awaitWaiters(this.key, 2);

			// SIGSTOP: the frozen leader's socket stays open and silent until
			// PostgreSQL's
			// idle_in_transaction_session_timeout (three heartbeats) ends its session.
			followers = others(second);
			marks = marks(followers);
			int frozenMark = second.mark();
			second.signal("STOP");
			LeaderInstance third = LeaderInstance.awaitGranted(followers, marks).instance();
			this.pgLocks.await("another session granted the leader's lock",
					(locks) -> grantedPids(locks).size() == 1 && !grantedPids(locks).contains(secondHolder));
			assertThat(second.saidSince(LeaderProcess.REVOKED, frozenMark)).as("revoked while frozen").isNull();

			// Resumed, the frozen leader finds its lock lost and is revoked.
			second.signal("CONT");
			second.await(LeaderProcess.REVOKED, frozenMark);
			assertOneLeader(third);
		}
		finally {
			for (LeaderInstance instance : this.instances) {
				instance.close();
			}
			// PostgreSQL ends the sessions of an ended process once it reads their closed
			// sockets: wait for that, so that NoAdvisoryLocksLeft checks what is left for
			// good.
			this.pgLocks.await("the sessions of the ended instances to end",
					(locks) -> locks.stream().noneMatch((lock) -> lock.key() == this.key));
		}
	}

	private void start() throws Exception {
		LeaderInstance instance = LeaderInstance.start("instance-" + this.started++, this.database, "advisory",
				this.namespace, ROLE, HEARTBEAT);
		this.instances.add(instance);
		instance.await(LeaderProcess.STARTED, 0);
	}

	/**
	 * Check that the given instance, and no other, says it leads, and that one session
	 * holds the leader's lock.
	 * @return the holder's pid
	 */
	private int assertOneLeader(LeaderInstance leader) {
		assertThat(this.instances.stream().filter(LeaderInstance::leads)).as("the instances that say they lead")
			.containsExactly(leader);
		List<Integer> holders = grantedPids(this.pgLocks.on(this.key));
		assertThat(holders).as("the sessions granted the leader's lock").hasSize(1);
		return holders.get(0);
	}

	private List<LeaderInstance> others(LeaderInstance leader) {
		return this.instances.stream().filter((instance) -> instance != leader).toList();
	}

	private static int[] marks(List<LeaderInstance> instances) {
		return instances.stream().mapToInt(LeaderInstance::mark).toArray();
	}

	private List<Integer> grantedPids(List<PgLocks.AdvisoryLock> locks) {
		return locks.stream()
			.filter((lock) -> lock.key() == this.key && lock.granted())
			.map(PgLocks.AdvisoryLock::pid)
			.toList();
	}

}
