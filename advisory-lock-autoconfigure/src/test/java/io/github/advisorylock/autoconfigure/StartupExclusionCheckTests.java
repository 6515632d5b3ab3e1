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

package io.github.advisorylock.autoconfigure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.ServerInRecovery;
import io.github.advisorylock.testsupport.SplittingProxy;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.Driver;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the startup check from a user's view, on JDBC and R2DBC: a server that
 * excludes starts, a proxy that sends each session to another server fails the startup
 * with the check's message, as does a server that refuses the functions; a check that
 * cannot be made (a pool of one, the database down) warns and lets the application start,
 * within the check's bound; and the check can be switched off.
 */
@ExtendWith({ NoAdvisoryLocksLeft.class, OutputCaptureExtension.class })
class StartupExclusionCheckTests {

	/** The database where a role may not call the lock functions. */
	private static final String REVOKED = "advisory_lock_revoked";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class));

	/** Another server: one in recovery, which grants advisory locks as any does. */
	private static InetSocketAddress otherServer() throws IOException {
		return new InetSocketAddress("127.0.0.1", ServerInRecovery.shared().port());
	}

	/** A data source whose every connection is new, through the given port. */
	private static DataSource newConnectionEachTime(String host, int port, String database, String user,
			String password) {
		Properties properties = new Properties();
		properties.setProperty("user", user);
		properties.setProperty("password", password);
		return new SimpleDriverDataSource(new Driver(), "jdbc:postgresql://" + host + ":" + port + "/" + database,
				properties);
	}

	private static InetSocketAddress testServer() {
		URI uri = URI.create(TestDatabase.get().url().substring("jdbc:".length()));
		return new InetSocketAddress(uri.getHost(), uri.getPort());
	}

	/**
	 * A data source through a proxy that sends each new connection to the next server.
	 */
	private static DataSource throughSplitting(SplittingProxy proxy) {
		return newConnectionEachTime("127.0.0.1", proxy.port(), "postgres", TestDatabase.get().username(),
				TestDatabase.get().password());
	}

	@Test
	void aServerThatExcludesStartsAndSaysSo(CapturedOutput output) {
		this.contextRunner.withBean(DataSource.class, () -> TestDatabase.get().dataSource()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains("Advisory locks on DataSource 'dataSource' exclude: a second session was "
					+ "refused a key a first one held");
		});
	}

	@Test
	void sessionsSentToDifferentServersFailTheStartup() throws IOException {
		try (SplittingProxy proxy = new SplittingProxy(testServer(), otherServer())) {
			this.contextRunner.withBean(DataSource.class, () -> throughSplitting(proxy)).run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
					.hasMessageStartingWith("Advisory locks on DataSource 'dataSource' exclude nobody: a second "
							+ "session was granted key ")
					.hasMessageContaining("advisory-lock.startup-check.enabled=false");
			});
		}
	}

	@Test
	void aStandbyFailsTheStartup() throws IOException {
		try (HikariDataSource standby = TestDatabase.get().newDataSource(ServerInRecovery.shared().jdbcUrl(), 2)) {
			this.contextRunner.withBean(DataSource.class, () -> standby).run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
					.hasMessageStartingWith("Advisory locks on DataSource 'dataSource' would be refused: the first "
							+ "session was given a server in recovery (a standby)")
					.hasMessageContaining("docs/pgpool.md");
			});
		}
	}

	@Test
	void theCheckCanBeSwitchedOff() throws IOException {
		try (SplittingProxy proxy = new SplittingProxy(testServer(), otherServer())) {
			this.contextRunner.withBean(DataSource.class, () -> throughSplitting(proxy))
				.withPropertyValues("advisory-lock.startup-check.enabled=false")
				.run((context) -> {
					assertThat(context).hasNotFailed().doesNotHaveBean(StartupExclusionCheck.class);
					assertThat(proxy.connections()).isZero();
				});
		}
	}

	@Test
	void aServerThatRefusesTheFunctionsFailsTheStartup() throws SQLException {
		String url = TestDatabase.get().createDatabase(REVOKED);
		try (Connection connection = TestDatabase.get().newDataSource(url, 1).getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("REVOKE EXECUTE ON FUNCTION pg_catalog.pg_try_advisory_xact_lock(bigint) FROM PUBLIC");
			statement
				.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'advisory_lock_revoked') "
						+ "THEN CREATE ROLE advisory_lock_revoked LOGIN PASSWORD 'revoked'; END IF; END $$");
		}
		InetSocketAddress server = testServer();
		this.contextRunner
			.withBean(DataSource.class,
					() -> newConnectionEachTime(server.getHostString(), server.getPort(), REVOKED,
							"advisory_lock_revoked", "revoked"))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
					.hasMessageStartingWith("The server behind DataSource 'dataSource' refuses the advisory lock "
							+ "functions (SQLSTATE 42501: ");
			});
	}

	@Test
	void aPoolOfOneWarnsThatNoSecondSessionCameAndStarts(CapturedOutput output) {
		try (HikariDataSource pool = TestDatabase.get().newDataSource(1)) {
			this.contextRunner.withBean(DataSource.class, () -> pool)
				.withPropertyValues("advisory-lock.startup-check.timeout=1s")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(output).contains("Could not prove at startup that advisory locks on DataSource "
							+ "'dataSource' exclude: no second connection within 1000ms while the first was held");
				});
		}
	}

	@Test
	void aReactiveApplicationChecksItsConnectionFactory(CapturedOutput output) throws IOException {
		ApplicationContextRunner reactive = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.r2dbc(),
					BootAutoConfigurations.r2dbcTransactionManager(), AdvisoryLockR2dbcAutoConfiguration.class))
			.withPropertyValues("spring.r2dbc.pool.enabled=false",
					"spring.r2dbc.username=" + TestDatabase.get().username(),
					"spring.r2dbc.password=" + TestDatabase.get().password());
		InetSocketAddress server = testServer();
		reactive
			.withPropertyValues("spring.r2dbc.url=r2dbc:postgresql://" + server.getHostString() + ":" + server.getPort()
					+ "/postgres")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("Advisory locks on ConnectionFactory 'connectionFactory' exclude: a "
						+ "second session was refused a key a first one held");
			});
		reactive
			.withPropertyValues("spring.r2dbc.url=r2dbc:postgresql://" + otherServer().getHostString() + ":"
					+ otherServer().getPort() + "/postgres")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
					.hasMessageStartingWith("Advisory locks on ConnectionFactory 'connectionFactory' would be "
							+ "refused: the first session was given a server in recovery (a standby)");
			});
		try (SplittingProxy proxy = new SplittingProxy(server, otherServer())) {
			reactive.withPropertyValues("spring.r2dbc.url=r2dbc:postgresql://127.0.0.1:" + proxy.port() + "/postgres")
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
						.hasMessageStartingWith("Advisory locks on ConnectionFactory 'connectionFactory' exclude "
								+ "nobody: a second session was granted key ");
				});
		}
	}

	@Test
	void aDatabaseThatDoesNotAnswerWarnsWithinTheBoundAndStarts(CapturedOutput output) throws IOException {
		// It accepts connections and never answers: connecting hangs, which a Hikari pool
		// waits out for 30 seconds by default; the check waits its own bound.
		try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
				HikariDataSource pool = new HikariDataSource()) {
			pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/postgres");
			this.contextRunner.withBean(DataSource.class, () -> pool)
				.withPropertyValues("advisory-lock.startup-check.timeout=1s")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(output).contains("Could not prove at startup that advisory locks on DataSource "
							+ "'dataSource' exclude: no connection within 1000ms (is the database up?)");
				});
		}
	}

	@Test
	void aDatabaseDownWarnsAndStarts(CapturedOutput output) throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		this.contextRunner
			.withBean(DataSource.class,
					() -> newConnectionEachTime("127.0.0.1", closedPort, "postgres", "postgres", "postgres"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output)
					.contains("Could not prove at startup that advisory locks on DataSource 'dataSource' exclude: "
							+ "no connection (")
					.contains("; is the database up?)");
			});
	}

}
