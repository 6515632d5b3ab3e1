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

package io.github.advisorylock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.FreezableRelay;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What ShedLock's suite cannot show about {@link AdvisoryLockProvider}, since its
 * providers lease rows: the lock's times are kept by the holder's process, so a holder
 * that dies releases at once, {@code lockAtLeastFor} included, and a frozen one keeps the
 * lock until the dead-man switch ends its session, whatever {@code lockAtMostFor} says.
 * The holder reaches the database through a relay: closing the relay is its process dying
 * (its connections closed), freezing it a paused process or a cut link. Another instance,
 * with a template and a provider of its own, asks for the lock.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockProviderTests {

	private final String namespace = "shedlock-" + UUID.randomUUID();

	private final String name = "job";

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final AdvisoryLockTemplate otherTemplate = new AdvisoryLockTemplate(TestDatabase.get().dataSource());

	private final AdvisoryLockProvider otherInstance = new AdvisoryLockProvider(this.otherTemplate, this.namespace);

	private final FreezableRelay relay;

	private final HikariDataSource holderPool;

	private final AdvisoryLockTemplate holderTemplate;

	private final AdvisoryLockProvider holder;

	AdvisoryLockProviderTests() throws Exception {
		this.relay = new FreezableRelay(TestDatabase.get().url());
		this.holderPool = TestDatabase.get().newDataSource(this.relay.url(), 2);
		this.holderTemplate = new AdvisoryLockTemplate(this.holderPool);
		this.holder = new AdvisoryLockProvider(this.holderTemplate, this.namespace);
	}

	@AfterEach
	void close() throws Exception {
		// Its connections closed first, the holder releases at once what it still holds.
		this.relay.close();
		this.holder.close();
		this.holderTemplate.close();
		this.holderPool.close();
		this.otherInstance.close();
		this.otherTemplate.close();
	}

	private boolean locked() {
		return this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, this.name))
			.stream()
			.anyMatch(PgLocks.AdvisoryLock::granted);
	}

	private void awaitUnlocked() {
		this.pgLocks.await("the lock released", (locks) -> !locked());
	}

	private LockConfiguration config(Duration lockAtMostFor, Duration lockAtLeastFor) {
		return new LockConfiguration(ClockProvider.now(), this.name, lockAtMostFor, lockAtLeastFor);
	}

	@Test
	void lockAtLeastForDoesNotOutliveTheHolder() throws Exception {
		this.holderTemplate.setHeartbeat(Duration.ofSeconds(10));
		this.holder.lock(config(Duration.ofHours(1), Duration.ofHours(1))).orElseThrow().unlock();
		// Unlocked early, it is kept for lockAtLeastFor: the other instance skips.
		assertThat(locked()).isTrue();
		assertThat(this.otherInstance.lock(config(Duration.ofMinutes(1), Duration.ZERO))).isEmpty();
		// The holder's process dies: its connection closes, and PostgreSQL releases the
		// lock at once, where a ShedLock row would stay locked for the hour.
		this.relay.close();
		awaitUnlocked();
		SimpleLock taken = this.otherInstance.lock(config(Duration.ofMinutes(1), Duration.ZERO)).orElseThrow();
		taken.unlock();
	}

	@Test
	void frozenHolderKeepsTheLockUntilTheDeadManSwitchWhenLockAtMostForIsLonger() {
		// A dead-man switch of three heartbeats, 600ms, against a lockAtMostFor of an
		// hour.
		this.holderTemplate.setHeartbeat(Duration.ofMillis(200));
		this.holder.lock(config(Duration.ofHours(1), Duration.ZERO)).orElseThrow();
		assertThat(locked()).isTrue();
		this.relay.freeze();
		// PostgreSQL ends the silent session at the switch, long before lockAtMostFor.
		awaitUnlocked();
		SimpleLock taken = this.otherInstance.lock(config(Duration.ofMinutes(1), Duration.ZERO)).orElseThrow();
		taken.unlock();
	}

	@Test
	void frozenHolderKeepsTheLockPastAShorterLockAtMostForUntilTheDeadManSwitch() {
		// A dead-man switch of three heartbeats, 9s, against a lockAtMostFor of 1s: the
		// checks below run between the two, and a busy machine may stall a thread for
		// seconds (the CI's busy run once took longer than a 3s switch). The relay must
		// freeze before lockAtMostFor, or the holder's release reaches the server: 1s
		// leaves room for a stall there too.
		this.holderTemplate.setHeartbeat(Duration.ofSeconds(3));
		LockConfiguration configuration = config(Duration.ofSeconds(1), Duration.ZERO);
		this.holder.lock(configuration).orElseThrow();
		this.relay.freeze();
		// The holder's release at lockAtMostFor cannot reach the server.
		Instant pastLockAtMostFor = configuration.getLockAtMostUntil().plusMillis(500);
		await().atMost(PgLocks.HANG_TIMEOUT).until(() -> ClockProvider.now().isAfter(pastLockAtMostFor));
		assertThat(locked()).isTrue();
		assertThat(this.otherInstance.lock(config(Duration.ofMinutes(1), Duration.ZERO))).isEmpty();
		// PostgreSQL ends the silent session at the switch.
		awaitUnlocked();
		SimpleLock taken = this.otherInstance.lock(config(Duration.ofMinutes(1), Duration.ZERO)).orElseThrow();
		taken.unlock();
	}

}
