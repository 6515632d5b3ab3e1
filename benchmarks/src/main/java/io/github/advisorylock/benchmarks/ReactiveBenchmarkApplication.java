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

import java.util.HashMap;
import java.util.Map;

import javax.sql.DataSource;

import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * The reactive application under measurement, in a context of its own: an R2DBC pool
 * (r2dbc-pool over r2dbc-postgresql, as Spring Boot builds one) with its transaction
 * manager, and a JDBC {@code DataSource} beside it, which {@code @AdvisoryLocked} needs
 * in an application with both stacks (docs/reactive.md) and Spring Boot does not define
 * where a {@code ConnectionFactory} exists.
 *
 * <p>
 * The pool and the transaction manager are defined here rather than by Spring Boot's
 * R2DBC auto-configuration, which Spring Boot 4 moved to a module of its own, so that the
 * same beans are measured on both lines.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration(excludeName = {
		// As in BenchmarkApplication: Spring Integration is there for JdbcLockRegistry
		// only.
		"org.springframework.boot.autoconfigure.integration.IntegrationAutoConfiguration",
		"org.springframework.boot.integration.autoconfigure.IntegrationAutoConfiguration" })
class ReactiveBenchmarkApplication {

	/** The R2DBC pool's most connections: the scenarios use two at a time. */
	static final int POOL_SIZE = 4;

	@Bean(destroyMethod = "dispose")
	ConnectionPool connectionFactory() {
		return R2dbcConnectionFactories.direct(POOL_SIZE);
	}

	@Bean
	R2dbcTransactionManager connectionFactoryTransactionManager(ConnectionFactory connectionFactory) {
		return new R2dbcTransactionManager(connectionFactory);
	}

	/**
	 * The JDBC side of the application, which the reactive calls do not use: the test
	 * database's shared pool, which a context cannot close.
	 */
	@Bean
	DataSource dataSource() {
		return TestDatabase.get().dataSource();
	}

	/**
	 * Spring Boot defines no JDBC transaction manager where another one, the R2DBC one
	 * here, exists.
	 */
	@Bean
	JdbcTransactionManager transactionManager(DataSource dataSource) {
		return new JdbcTransactionManager(dataSource);
	}

	@Bean
	ReactiveAnnotatedCalls reactiveAnnotatedCalls(ConnectionFactory connectionFactory) {
		return new ReactiveAnnotatedCalls(connectionFactory);
	}

	@Bean
	ReactiveHandWrittenCalls reactiveHandWrittenCalls(ConnectionFactory connectionFactory,
			R2dbcTransactionManager connectionFactoryTransactionManager, ReactiveAdvisoryLockOperations locks) {
		return new ReactiveHandWrittenCalls(connectionFactory,
				TransactionalOperator.create(connectionFactoryTransactionManager), locks);
	}

	/**
	 * Start the application on the test database.
	 * @return the running context
	 */
	static ConfigurableApplicationContext start() {
		Map<String, Object> properties = new HashMap<>();
		properties.put("spring.main.lazy-initialization", false);
		properties.put("logging.level.root", "WARN");
		return new SpringApplicationBuilder(ReactiveBenchmarkApplication.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(properties)
			.run();
	}

}
