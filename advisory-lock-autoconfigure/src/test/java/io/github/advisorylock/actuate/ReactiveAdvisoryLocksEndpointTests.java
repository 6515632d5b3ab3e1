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

package io.github.advisorylock.actuate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLocksDescriptor;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockEndpointAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockR2dbcAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockR2dbcEndpointAutoConfiguration;
import io.github.advisorylock.pglocks.AdvisoryLockInspector;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.LockActivity;
import io.github.advisorylock.pglocks.R2dbcAdvisoryLockInspector;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@link ReactiveAdvisoryLocksEndpoint}: in an application on R2DBC alone,
 * the {@code advisorylocks} endpoint shows what the JDBC one shows, read over R2DBC, and
 * answers {@code 503} rather than waiting when it cannot read in time.
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class ReactiveAdvisoryLocksEndpointTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	/**
	 * The endpoint's bound on connecting and reading, 1s by default: a new connection on
	 * a loaded machine can take longer, and these tests read what the endpoint shows.
	 */
	private static final String GENEROUS_READS = "advisory-lock.diagnosis.timeout=" + HANG.toSeconds() + "s";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(BootAutoConfigurations.r2dbc(), BootAutoConfigurations.r2dbcTransactionManager(),
						AdvisoryLockAutoConfiguration.class, AdvisoryLockR2dbcAutoConfiguration.class,
						AdvisoryLockEndpointAutoConfiguration.class, AdvisoryLockR2dbcEndpointAutoConfiguration.class))
		.withPropertyValues(R2dbcConnectionFactories.springR2dbcPropertyValues())
		.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks", GENEROUS_READS);

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final String namespace = "reactive-endpoint-" + UUID.randomUUID();

	@Test
	void anR2dbcApplicationShowsAHeldAndAWaitingLockWithItsLabelOverHttp() {
		// A value whose key is negative: the high half lands in classid as an unsigned
		// oid.
		int value = IntStream.iterate(0, (i) -> i + 1)
			.filter((i) -> AdvisoryLockKeys.of(this.namespace, i) < 0)
			.findFirst()
			.getAsInt();
		long key = AdvisoryLockKeys.of(this.namespace, value);
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ReactiveAdvisoryLocksEndpoint.class)
				.doesNotHaveBean(AdvisoryLocksEndpoint.class);
			ReactiveAdvisoryLockOperations locks = context.getBean(ReactiveAdvisoryLockOperations.class);
			TransactionalOperator transactional = TransactionalOperator
				.create(context.getBean(ReactiveTransactionManager.class));
			Sinks.Empty<Void> locked = Sinks.empty();
			Sinks.Empty<Void> release = Sinks.empty();
			Mono<Void> holding = locks.lock(this.namespace, value)
				.then(Mono.fromRunnable(locked::tryEmitEmpty))
				.then(release.asMono());
			Disposable holder = transactional.transactional(holding).subscribe();
			Disposable waiter = null;
			try {
				// Its lock call completed, so its session is idle in transaction: a
				// granted row alone may still show it active.
				locked.asMono().block(HANG);
				waiter = transactional
					.transactional(locks.lock(LockRequest.of(this.namespace, value).withTimeout(HANG)))
					.subscribe();
				this.pgLocks.awaitWaiters(key, 1);
				int holderPid = this.pgLocks.holderPid(key);
				int waiterPid = this.pgLocks.waiterPid(key);
				AdvisoryLocksDescriptor read = read(context, "advisorylocks", Map.of());
				assertThat(read.truncated()).isFalse();
				assertThat(read.locks()).filteredOn((lock) -> Long.valueOf(key).equals(lock.key()))
					.satisfiesExactly((held) -> {
						assertThat(held.pid()).isEqualTo(holderPid);
						assertThat(held.granted()).isTrue();
						assertThat(held.label()).isEqualTo(this.namespace + ":" + value);
						assertThat(held.mode()).isEqualTo("ExclusiveLock");
						assertThat(held.state()).isEqualTo("idle in transaction");
						assertThat(held.transactionAge()).isNotNull().isGreaterThanOrEqualTo(Duration.ZERO);
						assertThat(held.keyPair()).isNull();
						assertThat(held.query()).isNull();
					}, (waiting) -> {
						assertThat(waiting.pid()).isEqualTo(waiterPid);
						assertThat(waiting.granted()).isFalse();
						assertThat(waiting.label()).isEqualTo(this.namespace + ":" + value);
						assertThat(waiting.state()).isEqualTo("active");
						assertThat(waiting.waitEventType()).isEqualTo("Lock");
						assertThat(waiting.waitEvent()).isEqualTo("advisory");
					});
			}
			finally {
				release.tryEmitEmpty();
				this.pgLocks.await("the locks released",
						(held) -> held.stream().noneMatch((lock) -> lock.key() == key));
				holder.dispose();
				if (waiter != null) {
					waiter.dispose();
				}
			}
		});
	}

	@Test
	void readsEveryFormOfKeyAsTheJdbcReaderDoes() throws SQLException {
		long unlabelled = AdvisoryLockKeys.of(this.namespace, "never derived here");
		try (Connection connection = TestDatabase.get().dataSource().getConnection()) {
			connection.setAutoCommit(false);
			try (PreparedStatement statement = connection
				.prepareStatement("SELECT pg_advisory_xact_lock(-5, 7), pg_advisory_xact_lock_shared(?)")) {
				statement.setLong(1, unlabelled);
				statement.execute();
			}
			try {
				List<LockActivity> overJdbc = new AdvisoryLockInspector(TestDatabase.get().dataSource(), false).locks()
					.locks();
				List<LockActivity> overR2dbc = new R2dbcAdvisoryLockInspector(R2dbcConnectionFactories.direct(1), HANG,
						false)
					.locks()
					.block(HANG)
					.locks();
				assertThat(comparable(overR2dbc)).contains("-5,7 ExclusiveLock true", unlabelled + " ShareLock true")
					.isEqualTo(comparable(overJdbc));
			}
			finally {
				connection.rollback();
			}
		}
	}

	private static List<String> comparable(List<LockActivity> locks) {
		// Everything but the transaction's age, which the two reads see at different
		// moments.
		return locks.stream()
			.sorted(Comparator.comparing(LockActivity::pid))
			.map((lock) -> ((lock.key() != null) ? lock.key().toString()
					: lock.keyPair().get(0) + "," + lock.keyPair().get(1)) + " " + lock.mode() + " " + lock.granted())
			.toList();
	}

	@Test
	void aReadThatCannotConnectInTimeIsAnswered503AndASecondReadMeanwhileToo() {
		// The first read's bound is one no pause of the test outlasts: the second read is
		// turned away because the first still runs, never because it timed out.
		ReactiveAdvisoryLocksEndpointWebExtension web = neverConnecting(HANG);
		Disposable first = web.advisoryLocks().subscribe();
		try {
			WebEndpointResponse<Object> meanwhile = web.advisoryLocks().block(HANG);
			assertThat(meanwhile.getStatus()).isEqualTo(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
			assertThat(meanwhile.getBody()).asString()
				.contains("another read of the advisory locks is running; try again");
		}
		finally {
			first.dispose();
		}
		WebEndpointResponse<Object> timedOut = neverConnecting(Duration.ofMillis(500)).advisoryLocks().block(HANG);
		assertThat(timedOut.getStatus()).isEqualTo(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		assertThat(timedOut.getBody()).isInstanceOfSatisfying(Map.class, (body) -> {
			assertThat(body.get("message")).asString().contains("no answer within 500 ms; try again");
			assertThat(body.get("retryAfterSeconds")).isEqualTo(1L);
		});
	}

	@Test
	void anUnknownConnectionFactoryIsNotFoundAndSeveralWithoutADefaultIsABadRequest() {
		this.contextRunner.run((context) -> {
			Object response = AdvisoryLocksWebOperations.at(context, "advisorylocks/{connectionFactory}")
				.invoke(new InvocationContext(SecurityContext.NONE, Map.of("connectionFactory", "nope")));
			assertThat(Mono.from((Publisher<?>) response).block(HANG)).isInstanceOfSatisfying(WebEndpointResponse.class,
					(web) -> assertThat(web.getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND));
		});
		R2dbcAdvisoryLockInspector inspector = new R2dbcAdvisoryLockInspector(new NeverConnecting(), HANG, false);
		ReactiveAdvisoryLocksEndpoint severalWithoutDefault = new ReactiveAdvisoryLocksEndpoint(
				Map.of("orders", inspector, "billing", inspector), null, null);
		assertThat(severalWithoutDefault.advisoryLocks()
			.<Object>map((locks) -> locks)
			.onErrorResume(Mono::just)
			.block(HANG))
			.isInstanceOfSatisfying(InvalidEndpointRequestException.class,
					(ex) -> assertThat(ex.getMessage()).contains("/advisorylocks/{connectionFactory}")
						.contains("orders")
						.contains("billing"));
	}

	@Test
	void anApplicationWithADataSourceKeepsTheJdbcEndpoint() {
		this.contextRunner.withBean(DataSource.class, () -> TestDatabase.get().dataSource())
			.run((context) -> assertThat(context).hasSingleBean(AdvisoryLocksEndpoint.class)
				.doesNotHaveBean(ReactiveAdvisoryLocksEndpoint.class));
	}

	private static ReactiveAdvisoryLocksEndpointWebExtension neverConnecting(Duration timeout) {
		R2dbcAdvisoryLockInspector inspector = new R2dbcAdvisoryLockInspector(new NeverConnecting(), timeout, false);
		return new ReactiveAdvisoryLocksEndpointWebExtension(
				new ReactiveAdvisoryLocksEndpoint(Map.of("connectionFactory", inspector), "connectionFactory", null),
				Duration.ofMillis(500));
	}

	private static AdvisoryLocksDescriptor read(ApplicationContext context, String path,
			Map<String, Object> arguments) {
		Object response = AdvisoryLocksWebOperations.at(context, path)
			.invoke(new InvocationContext(SecurityContext.NONE, arguments));
		Object web = Mono.from((Publisher<?>) response).block(HANG);
		assertThat(web).isInstanceOf(WebEndpointResponse.class);
		assertThat(((WebEndpointResponse<?>) web).getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
		return (AdvisoryLocksDescriptor) ((WebEndpointResponse<?>) web).getBody();
	}

	/** A database that does not answer: the connection never comes. */
	private static final class NeverConnecting implements ConnectionFactory {

		@Override
		public Publisher<io.r2dbc.spi.Connection> create() {
			return Mono.never();
		}

		@Override
		public ConnectionFactoryMetadata getMetadata() {
			return () -> "never";
		}

	}

}
