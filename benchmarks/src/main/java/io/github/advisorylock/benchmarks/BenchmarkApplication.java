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
import java.util.HashMap;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The application under measurement: Spring Boot's auto-configured Hikari pool and
 * transaction manager, and the advisory-lock starter, as an application would have them.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration(excludeName = {
		// Spring Integration comes along for JdbcLockRegistry only; its message
		// infrastructure is not measured.
		"org.springframework.boot.autoconfigure.integration.IntegrationAutoConfiguration",
		"org.springframework.boot.integration.autoconfigure.IntegrationAutoConfiguration" })
class BenchmarkApplication {

	/** The largest pool any scenario uses: the most callers of the scaling runs. */
	static final int MAX_POOL_SIZE = 32;

	@Bean
	AnnotatedCalls annotatedCalls() {
		return new AnnotatedCalls();
	}

	@Bean
	HandWrittenCalls handWrittenCalls(DataSource dataSource, AdvisoryLockOperations locks) {
		return new HandWrittenCalls(dataSource, locks);
	}

	/**
	 * Start the application on the test database.
	 * @param database the database
	 * @return the running context
	 */
	static ConfigurableApplicationContext start(TestDatabase database) {
		return start(database, database.url(), MAX_POOL_SIZE);
	}

	/**
	 * Start the application on the test database, reached through another JDBC URL (a
	 * relay's).
	 * @param database the database
	 * @param url the JDBC URL to connect to
	 * @param poolSize the most connections of the pool, which opens them all at once
	 * @return the running context
	 */
	static ConfigurableApplicationContext start(TestDatabase database, String url, int poolSize) {
		Map<String, Object> properties = new HashMap<>(database.springDataSourceProperties());
		properties.put("spring.datasource.url", url);
		properties.put("spring.datasource.hikari.maximum-pool-size", poolSize);
		properties.put("spring.datasource.hikari.minimum-idle", poolSize);
		properties.put("spring.datasource.hikari.pool-name", "benchmark");
		// Its R2DBC driver is on the class path for the reactive scenario, which has an
		// application of its own: Spring Boot would define a ConnectionFactory here, and
		// then no DataSource.
		properties.put("spring.autoconfigure.exclude", BootAutoConfigurations.excludeR2dbc());
		properties.put("spring.main.lazy-initialization", false);
		properties.put("logging.level.root", "WARN");
		return new SpringApplicationBuilder(BenchmarkApplication.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(properties)
			.run();
	}

	/**
	 * Size the application's pool, so that every caller of a scenario has a connection
	 * and no more are open, and wait until the pool has opened them all, so that no
	 * measurement waits on a connection being opened.
	 * @param context the application
	 * @param size the most connections
	 */
	static void resizePool(ConfigurableApplicationContext context, int size) {
		HikariDataSource pool = context.getBean(HikariDataSource.class);
		pool.getHikariConfigMXBean().setMaximumPoolSize(size);
		pool.getHikariConfigMXBean().setMinimumIdle(size);
		HikariPoolMXBean state = pool.getHikariPoolMXBean();
		state.softEvictConnections();
		long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
		while (state.getTotalConnections() != size || state.getIdleConnections() != size) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The pool has " + state.getTotalConnections() + " connections, "
						+ state.getIdleConnections() + " idle, after two minutes; wanted " + size);
			}
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
	}

}
