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
import java.util.ConcurrentModificationException;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.integration.AdvisoryLockRegistry;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.FreezableRelay;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link AdvisoryLockRegistry}'s confirmation of a held lock on a network that stopped
 * answering (a relay that forwards nothing, as a partition or a frozen middlebox): a
 * re-entrant timed {@code tryLock} gives up at its time, and the lock counts as lost.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class FrozenLinkLockRegistryTests {

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "si-" + UUID.randomUUID();

	@Test
	void aReentrantTryLockOnAFrozenLinkGivesUpAtItsTimeAndTheLockIsLost() throws Exception {
		try (FreezableRelay relay = new FreezableRelay(TestDatabase.get().url());
				HikariDataSource pool = TestDatabase.get().newDataSource(relay.url(), 2);
				AdvisoryLockTemplate template = new AdvisoryLockTemplate(pool)) {
			// Neither a heartbeat nor the connection's network timeout (three heartbeats)
			// ends the wait within the test: only the tryLock's own time does.
			template.setHeartbeat(Duration.ofHours(1));
			Lock lock = new AdvisoryLockRegistry(template, this.namespace).obtain("leader");
			Future<Boolean> reentered = this.threads.submit(() -> {
				lock.lock();
				relay.freeze();
				try {
					return lock.tryLock(500, TimeUnit.MILLISECONDS);
				}
				finally {
					assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
				}
			});
			assertThat(reentered.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
				.as("a re-entrant tryLock whose confirmation got no answer")
				.isFalse();
		}
		// Closing the relay closed the frozen session's socket: its backend exits.
		new PgLocks(TestDatabase.get().dataSource()).await("the frozen session ended", (locks) -> locks.stream()
			.noneMatch((lock) -> lock.key() == AdvisoryLockKeys.of(this.namespace, "leader")));
	}

}
