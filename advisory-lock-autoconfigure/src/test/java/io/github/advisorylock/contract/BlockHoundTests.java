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

import java.lang.reflect.Method;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proof that the reactive tests run under BlockHound: a blocking call in the work of
 * a reactive lock, which runs on the R2DBC driver's event loop once the lock statement
 * returned, is signalled as a {@link BlockingOperationError}. Where BlockHound is not
 * installed these tests fail, so a green run of the tests tagged {@code reactive} means
 * that neither the library nor the tests blocked a thread that must not block.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class BlockHoundTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private static ConnectionPool pool;

	private final String namespace = "blockhound-" + UUID.randomUUID();

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final AtomicBoolean ranOnANonBlockingThread = new AtomicBoolean();

	@BeforeAll
	static void createPool() {
		pool = R2dbcConnectionFactories.direct(2);
	}

	@AfterAll
	static void disposePool() {
		pool.dispose();
	}

	/** Run the work in a reactive transaction, after taking a lock in it. */
	private <T> Mono<T> lockedWork(Mono<T> work) {
		return new R2dbcAdvisoryLockTemplate(pool).lock(this.namespace, 1)
			.then(work)
			.as(TransactionalOperator.create(new R2dbcTransactionManager(pool))::transactional);
	}

	@Test
	void aSleepInTheLockedWorkIsReported() {
		Mono<String> sleeping = Mono.fromCallable(() -> {
			this.ranOnANonBlockingThread.set(Schedulers.isInNonBlockingThread());
			Thread.sleep(1);
			return "slept";
		});
		StepVerifier.create(lockedWork(sleeping))
			.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(BlockingOperationError.class)
				.hasMessageContaining("java.lang.Thread.sleep"))
			.verify(HANG);
		assertThat(this.ranOnANonBlockingThread).isTrue();
		assertThat(this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, 1))).isEmpty();
	}

	@Test
	void aJdbcQueryInTheLockedWorkIsReported() throws SQLException {
		// A pool of its own, closed with the test: the error stops the driver in the
		// middle of its protocol, and the connection is not fit for another query.
		try (HikariDataSource dataSource = TestDatabase.get().newDataSource(1);
				Connection connection = dataSource.getConnection()) {
			Mono<Boolean> querying = Mono.fromCallable(() -> {
				this.ranOnANonBlockingThread.set(Schedulers.isInNonBlockingThread());
				try (Statement statement = connection.createStatement()) {
					return statement.execute("SELECT count(*) FROM pg_locks");
				}
			});
			StepVerifier.create(lockedWork(querying))
				.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(BlockingOperationError.class))
				.verify(HANG);
		}
		assertThat(this.ranOnANonBlockingThread).isTrue();
		assertThat(this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, 1))).isEmpty();
	}

	@Test
	void theSameQueryOnTheBoundedElasticSchedulerIsAllowed() {
		Mono<Integer> querying = Mono.fromCallable(() -> this.pgLocks.on(AdvisoryLockKeys.of(this.namespace, 1)).size())
			.subscribeOn(Schedulers.boundedElastic());
		StepVerifier.create(lockedWork(querying)).expectNext(1).expectComplete().verify(HANG);
	}

	@Test
	void theDriversScramNonceIsTheOneCallAllowedAndSecureRandomElsewhereIsNot() throws Exception {
		Method nonce = scramNonce();
		Mono<String> drawn = Mono.fromCallable(() -> (String) nonce.invoke(null, 4096, new SecureRandom()))
			.subscribeOn(Schedulers.parallel());
		StepVerifier.create(drawn).expectNextMatches((value) -> !value.isEmpty()).expectComplete().verify(HANG);
		Mono<byte[]> elsewhere = Mono.fromCallable(() -> {
			byte[] bytes = new byte[4096];
			new SecureRandom().nextBytes(bytes);
			return bytes;
		}).subscribeOn(Schedulers.parallel());
		StepVerifier.create(elsewhere)
			.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(BlockingOperationError.class))
			.verify(HANG);
	}

	/**
	 * Return the SCRAM nonce of the driver's line: SCRAM 3 on Spring Boot 4, 2 on 3.5.
	 */
	private static Method scramNonce() throws ReflectiveOperationException {
		for (String name : List.of("com.ongres.scram.common.ScramFunctions",
				"com.ongres.scram.common.util.CryptoUtil")) {
			try {
				return Class.forName(name).getMethod("nonce", int.class, SecureRandom.class);
			}
			catch (ClassNotFoundException | NoSuchMethodException ex) {
				// Not this line's.
			}
		}
		throw new ClassNotFoundException("No SCRAM nonce method: update DriverBlockHoundIntegration to the driver's");
	}

}
