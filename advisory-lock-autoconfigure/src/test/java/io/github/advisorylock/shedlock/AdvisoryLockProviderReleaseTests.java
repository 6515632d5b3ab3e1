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

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The moment of a release, which ShedLock's suite can only reach by chance: between the
 * database letting a lock go and the lock's connection being back, a {@code lock()} for
 * the same name must not be refused by {@link AdvisoryLockProvider} alone (a
 * {@code @SchedulerLock} run skipped while nothing holds its lock): it waits for the
 * release to end, and takes the lock.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockProviderReleaseTests {

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final String namespace = "shedlock-" + UUID.randomUUID();

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@Test
	void aLockAskedForWhileTheNameIsReleasedWaitsForTheReleaseAndTakesIt() throws Exception {
		CountDownLatch released = new CountDownLatch(1);
		CountDownLatch goOn = new CountDownLatch(1);
		DataSource lockConnections = new HeldBackAtFirstClose(TestDatabase.get().dataSource(), released, goOn);
		try (AdvisoryLockTemplate template = new AdvisoryLockTemplate(TestDatabase.get().dataSource())) {
			template.setInvocationDataSource(lockConnections);
			template.setHeartbeat(Duration.ofMinutes(1));
			AdvisoryLockProvider provider = new AdvisoryLockProvider(template, this.namespace);
			try {
				SimpleLock first = provider.lock(lockConfig("job")).orElseThrow();
				// The unlock rolls back the lock's transaction, then stops before its
				// connection is given back: the release is half done.
				Future<?> unlocking = this.threads.submit(first::unlock);
				TestThreads.await(released);
				assertThat(this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, "job")))
					.as("the key in pg_locks once the first lock's transaction rolled back")
					.isEmpty();
				AtomicReference<Thread> asking = new AtomicReference<>();
				Future<Optional<SimpleLock>> second = this.threads.submit(() -> {
					asking.set(Thread.currentThread());
					return provider.lock(lockConfig("job"));
				});
				// Either it has answered, or it waits for the release to end.
				await().atMost(PgLocks.HANG_TIMEOUT)
					.until(() -> second.isDone()
							|| (asking.get() != null && asking.get().getState() == Thread.State.BLOCKED));
				goOn.countDown();
				unlocking.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				Optional<SimpleLock> again = second.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				assertThat(again).as("a lock asked for while the database had released the name").isPresent();
				again.get().unlock();
			}
			finally {
				goOn.countDown();
				provider.close();
			}
		}
	}

	private static LockConfiguration lockConfig(String name) {
		return new LockConfiguration(ClockProvider.now(), name, Duration.ofMinutes(5), Duration.ZERO);
	}

	/**
	 * Lends the connections of another data source, and holds back the first
	 * {@link Connection#close()} (the lock session's connection given back after its
	 * rollback) until told to go on.
	 */
	private static final class HeldBackAtFirstClose extends DelegatingDataSource {

		private final AtomicBoolean first = new AtomicBoolean(true);

		private final CountDownLatch closing;

		private final CountDownLatch goOn;

		HeldBackAtFirstClose(DataSource target, CountDownLatch closing, CountDownLatch goOn) {
			super(target);
			this.closing = closing;
			this.goOn = goOn;
		}

		@Override
		public Connection getConnection() throws java.sql.SQLException {
			Connection connection = obtainTargetDataSource().getConnection();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						if (method.getName().equals("close") && this.first.compareAndSet(true, false)) {
							this.closing.countDown();
							TestThreads.await(this.goOn);
						}
						try {
							return method.invoke(connection, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

	}

}
