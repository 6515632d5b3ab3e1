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

import java.util.List;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A JDBC application with neither Reactor nor R2DBC on its class path starts with the
 * auto-configuration and takes its locks: the reactive path is optional, and nothing of
 * the JDBC path loads a class of it. Run alone, by the surefire execution
 * {@code jdbc-only}, on the test class path less the reactive stack (see the module's
 * pom); the other executions leave it out.
 */
@Tag("jdbc-only")
@ExtendWith(NoAdvisoryLocksLeft.class)
class WithoutReactorTests {

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final String user = UUID.randomUUID().toString();

	@Test
	void aJdbcApplicationStartsAndLocksWithoutReactorOrR2dbc() {
		for (String reactive : List.of("reactor.core.publisher.Mono", "org.reactivestreams.Publisher",
				"io.r2dbc.spi.ConnectionFactory", "io.r2dbc.postgresql.PostgresqlConnectionFactory",
				"org.springframework.r2dbc.connection.R2dbcTransactionManager")) {
			assertThatExceptionOfType(ClassNotFoundException.class).as(reactive)
				.isThrownBy(() -> Class.forName(reactive, false, getClass().getClassLoader()));
		}
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(JdbcApplication.class)
			.web(WebApplicationType.NONE)
			.properties(TestDatabase.get().springDataSourcePropertyValues())
			.run()) {
			long key = AdvisoryLockKeys.of("jdbc_only", this.user);
			Held annotated = context.getBean(Requests.class).annotated(this.user);
			assertThat(annotated.locks())
				.containsExactly(new AdvisoryLock(annotated.pid(), key, "ExclusiveLock", true));
			AdvisoryLockOperations operations = context.getBean(AdvisoryLockOperations.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			Held programmatic = new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
				.execute((status) -> {
					operations.lock("jdbc_only", this.user);
					return new Held(jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class),
							this.pgLocks.on(key));
				});
			assertThat(programmatic.locks())
				.containsExactly(new AdvisoryLock(programmatic.pid(), key, "ExclusiveLock", true));
			assertThat(this.pgLocks.on(key)).isEmpty();
		}
	}

	/**
	 * The server session of a transaction, and the locks on a key as another session saw
	 * them while it ran.
	 */
	record Held(int pid, List<AdvisoryLock> locks) {
	}

	static class Requests {

		private final JdbcTemplate jdbc;

		private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

		Requests(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		@AdvisoryLocked(namespace = "jdbc_only", key = "#user")
		public Held annotated(String user) {
			return new Held(this.jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class),
					this.pgLocks.on(AdvisoryLockKeys.of("jdbc_only", user)));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class JdbcApplication {

		@Bean
		Requests requests(JdbcTemplate jdbc) {
			return new Requests(jdbc);
		}

	}

}
