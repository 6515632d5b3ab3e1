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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the reactive scenario measures, checked against real PostgreSQL without timing
 * anything: each measured call locks the key it is given and waits for another
 * transaction that holds it, the locked body of a hand-off waiter starts only once the
 * holder committed, and the JDBC benchmark application keeps its {@code DataSource} with
 * the R2DBC driver on the class path.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class ReactiveScenarioTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private static final String DEFAULT_TIMEOUT = "advisory-lock.default-timeout";

	private static ConfigurableApplicationContext jdbc;

	private static ConfigurableApplicationContext reactive;

	private final DataSource holders = TestDatabase.get().dataSource();

	private final PgLocks pgLocks = new PgLocks(this.holders);

	@BeforeAll
	static void start() {
		TestDatabase database = TestDatabase.get();
		jdbc = BenchmarkApplication.start(database, database.url(), 2);
		// The calls that wait with the default timeout (2 s) must still wait when the
		// test has seen them in pg_locks and commits the holder, which a loaded machine
		// can delay by seconds: only a hang may end their wait.
		System.setProperty(DEFAULT_TIMEOUT, HANG.toMillis() + "ms");
		try {
			reactive = ReactiveBenchmarkApplication.start();
		}
		finally {
			System.clearProperty(DEFAULT_TIMEOUT);
		}
	}

	@AfterAll
	static void stop() {
		reactive.close();
		jdbc.close();
	}

	@Test
	void theJdbcApplicationKeepsItsDataSourceWithTheR2dbcDriverOnTheClassPath() {
		assertThat(jdbc.getBeansOfType(DataSource.class)).hasSize(1);
		assertThat(jdbc.getBeansOfType(ConnectionFactory.class)).isEmpty();
	}

	@Test
	void theFloorLocksTheKeyAsItIs() throws Exception {
		ReactiveHandWrittenCalls calls = reactive.getBean(ReactiveHandWrittenCalls.class);
		waitsForTheHolder(false, (key, body) -> calls.floor(key).then(Mono.fromRunnable(body)));
	}

	@Test
	void theFloorInATransactionalMethodLocksTheKeyAsItIs() throws Exception {
		ReactiveAnnotatedCalls calls = reactive.getBean(ReactiveAnnotatedCalls.class);
		waitsForTheHolder(false, (key, body) -> calls.floor(key).then(Mono.fromRunnable(body)));
	}

	@Test
	void theAnnotatedMethodLocksTheDerivedKey() throws Exception {
		ReactiveAnnotatedCalls calls = reactive.getBean(ReactiveAnnotatedCalls.class);
		waitsForTheHolder(true, (key, body) -> calls.lockOne(key).then(Mono.fromRunnable(body)));
	}

	@Test
	void theOperationsLockTheDerivedKey() throws Exception {
		ReactiveHandWrittenCalls calls = reactive.getBean(ReactiveHandWrittenCalls.class);
		waitsForTheHolder(true, (key, body) -> calls.operations(key).then(Mono.fromRunnable(body)));
	}

	@Test
	void theHandOffFloorRunsItsBodyOnlyOnceTheHolderCommitted() throws Exception {
		ReactiveHandWrittenCalls calls = reactive.getBean(ReactiveHandWrittenCalls.class);
		waitsForTheHolder(false, calls::floorAndRun);
	}

	@Test
	void theHandOffAnnotatedMethodRunsItsBodyOnlyOnceTheHolderCommitted() throws Exception {
		ReactiveAnnotatedCalls calls = reactive.getBean(ReactiveAnnotatedCalls.class);
		waitsForTheHolder(true, calls::lockAndRun);
	}

	/**
	 * Hold the call's key in another transaction, subscribe, see the call wait in
	 * {@code pg_locks}, and commit the holder: the call's body must not have run before,
	 * and the call must then complete.
	 * @param derived whether the call derives its key from the benchmark's namespace
	 * @param call the call, by key value and body
	 */
	private void waitsForTheHolder(boolean derived, BiFunction<Long, Runnable, Mono<Void>> call) throws Exception {
		long value = ThreadLocalRandom.current().nextLong();
		long lockKey = derived ? AdvisoryLockKeys.of(AnnotatedCalls.NAMESPACE, value) : value;
		AtomicBoolean ran = new AtomicBoolean();
		try (LockHolder holder = LockHolder.exclusive(this.holders, lockKey)) {
			CompletableFuture<Void> done = call.apply(value, () -> ran.set(true)).toFuture();
			this.pgLocks.awaitWaiters(lockKey, 1);
			assertThat(ran).isFalse();
			holder.commit();
			done.get(HANG.toSeconds(), TimeUnit.SECONDS);
			assertThat(ran).isTrue();
		}
	}

}
