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
import java.util.concurrent.CountDownLatch;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;

/**
 * Another instance of an application, in a JVM of its own: takes an invocation-scoped
 * lock, says {@value #HELD} on its standard output, and holds the lock until the process
 * is killed or stopped. {@link TakeoverBenchmark} kills it ({@code SIGKILL}) or stops it
 * ({@code SIGSTOP}) and times how soon a waiting instance holds the lock.
 */
public final class HolderProcess {

	/** The line the holder prints once it holds the lock. */
	static final String HELD = "held";

	private HolderProcess() {
	}

	/**
	 * Hold the lock.
	 * @param args the JDBC URL, user, password, namespace, key value, and heartbeat in
	 * milliseconds
	 */
	public static void main(String[] args) throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setUsername(args[1]);
		config.setPassword(args[2]);
		config.setMaximumPoolSize(1);
		try (HikariDataSource pool = new HikariDataSource(config);
				AdvisoryLockTemplate locks = new AdvisoryLockTemplate(pool)) {
			locks.setHeartbeat(Duration.ofMillis(Long.parseLong(args[5])));
			locks.execute(LockRequest.of(args[3], args[4]).withScope(LockScope.INVOCATION), (handle) -> {
				System.out.println(HELD);
				System.out.flush();
				try {
					new CountDownLatch(1).await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return null;
			});
		}
	}

}
