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

import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.testsupport.PgPool;
import io.github.advisorylock.testsupport.PostgresPair;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the tests through pgpool-II run on, as a JUnit extension a test class registers
 * statically: a primary and its streaming standby, an observer pool straight to each, and
 * one pgpool-II per {@link Setup}, started at its first use, all stopped after the class.
 * Where pgpool-II is not installed nothing starts, and each test skips, or fails where
 * pgpool-II is required ({@link PgPool#assumeInstalled()}): a class-level skip would be
 * reported as no test at all. The JDBC and R2DBC classes run in JVMs of their own, so
 * each starts its own.
 *
 * @author advisory-lock authors
 */
final class PgPoolTopology implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

	private final Map<Setup, PgPool> pgpools = new EnumMap<>(Setup.class);

	private PostgresPair servers;

	private HikariDataSource primary;

	private HikariDataSource standby;

	@Override
	public void beforeAll(ExtensionContext context) throws IOException {
		if (PgPool.binary().isPresent()) {
			this.servers = PostgresPair.start(PostgresPair.Replication.ASYNC);
			this.primary = direct(this.servers.primaryPort());
			this.standby = direct(this.servers.standbyPort());
		}
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		PgPool.assumeInstalled();
	}

	private static HikariDataSource direct(int port) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
		config.setUsername("postgres");
		config.setPassword("postgres");
		config.setMaximumPoolSize(4);
		config.setMinimumIdle(0);
		config.setPoolName("pgpool-tests-observer-" + port);
		return new HikariDataSource(config);
	}

	/** Return the pgpool-II of a configuration, started at the first call. */
	PgPool pgpool(Setup setup) {
		return this.pgpools.computeIfAbsent(setup, (started) -> PgPool.start(this.servers, started.settings));
	}

	/** Return a pool straight to the primary, to read its locks. */
	HikariDataSource primary() {
		return this.primary;
	}

	/** Return a pool straight to the standby, to read its locks. */
	HikariDataSource standby() {
		return this.standby;
	}

	int primaryPort() {
		return this.servers.primaryPort();
	}

	int standbyPort() {
		return this.servers.standbyPort();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.servers != null) {
			this.pgpools.values().forEach(PgPool::close);
			this.pgpools.clear();
			this.primary.close();
			this.standby.close();
			this.servers.close();
		}
	}

	/** The configurations tested, each with a pgpool-II of its own (docs/pgpool.md). */
	enum Setup {

		/** pgpool-II's defaults: empty function lists, comments respected. */
		DEFAULTS(Map.of()),

		/** The sequence functions listed as writing, as common configurations have it. */
		SEQUENCES_LISTED(Map.of("write_function_list", "'nextval,setval'")),

		/**
		 * Comments ignored in the balancing, and the lock functions listed as writing,
		 * qualified or not: docs/pgpool.md's advice where {@code allow_sql_comments} must
		 * be on.
		 */
		COMMENTS_IGNORED_LOCKS_LISTED(Map.of("allow_sql_comments", "on", "write_function_list",
				"'nextval,setval,(pg_catalog\\.)?pg_(try_)?advisory_.*'")),

		/**
		 * Comments ignored, the sequence functions listed only: the locks are balanced.
		 */
		COMMENTS_IGNORED(Map.of("allow_sql_comments", "on", "write_function_list", "'nextval,setval'"));

		private final Map<String, String> settings;

		Setup(Map<String, String> settings) {
			this.settings = settings;
		}

	}

}
