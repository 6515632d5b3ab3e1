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
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.integration.AdvisoryLockRegistry;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;

import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * An application instance that takes part in a leader election, in a JVM of its own:
 * Spring Integration's {@link LockRegistryLeaderInitiator}, unchanged and at its
 * defaults, over {@link AdvisoryLockRegistry} or over {@code JdbcLockRegistry} (at its
 * defaults too, on the {@code INT_LOCK} table). It says {@value #STARTED} on its standard
 * output once it takes part, then {@value #GRANTED} on each {@link OnGrantedEvent} and
 * {@value #REVOKED} on each {@link OnRevokedEvent}, until the process is killed.
 * {@link LeaderInstance} starts it.
 */
public final class LeaderProcess {

	/** The line said once the initiator has started. */
	static final String STARTED = "leader-election: started";

	/** The line said on {@link OnGrantedEvent}. */
	static final String GRANTED = "leader-election: granted";

	/** The line said on {@link OnRevokedEvent}. */
	static final String REVOKED = "leader-election: revoked";

	/** {@code JdbcLockRegistry}'s default poll. */
	static final Duration JDBC_IDLE_BETWEEN_TRIES = Duration.ofMillis(100);

	private LeaderProcess() {
	}

	/**
	 * Take part in the election until the process is killed.
	 * @param args the JDBC URL, user, password, registry ({@code advisory} or
	 * {@code jdbc}), namespace of the advisory locks, role (the lock key), and the
	 * advisory locks' heartbeat in milliseconds
	 */
	public static void main(String[] args) throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setUsername(args[1]);
		config.setPassword(args[2]);
		config.setMaximumPoolSize(2);
		HikariDataSource pool = new HikariDataSource(config);
		DefaultCandidate candidate = new DefaultCandidate(UUID.randomUUID().toString(), args[5]);
		LockRegistryLeaderInitiator initiator = switch (args[3]) {
			case "advisory" -> {
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool);
				locks.setHeartbeat(Duration.ofMillis(Long.parseLong(args[6])));
				yield new LockRegistryLeaderInitiator(new AdvisoryLockRegistry(locks, args[4]), candidate);
			}
			case "jdbc" -> new LockRegistryLeaderInitiator(
					new Peers(pool, new DataSourceTransactionManager(pool)).lockRegistry(JDBC_IDLE_BETWEEN_TRIES),
					candidate);
			default -> throw new IllegalArgumentException("No registry " + args[3] + ": advisory or jdbc");
		};
		initiator.setLeaderEventPublisher(new DefaultLeaderEventPublisher((event) -> {
			if (event instanceof OnGrantedEvent) {
				say(GRANTED);
			}
			else if (event instanceof OnRevokedEvent) {
				say(REVOKED);
			}
		}));
		initiator.start();
		say(STARTED);
		new CountDownLatch(1).await();
	}

	private static void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
