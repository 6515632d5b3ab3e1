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

package io.github.advisorylock.interceptor;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockPrerequisitesAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockR2dbcAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import io.r2dbc.spi.Statement;
import io.r2dbc.spi.Wrapped;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The path of an annotated {@code Mono} call to its lock statement, counted as
 * {@link LockPathTests} counts a blocking call's: from
 * {@link AdvisoryLockInterceptor#invoke}, which runs at subscription inside the
 * transaction that Spring's reactive transaction interceptor begins, until the statement
 * executes, on whichever threads the call moves to.
 *
 * @see LockPathTests
 */
@Tag("lock-path")
@ExtendWith({ NoAdvisoryLocksLeft.class, LibraryPath.Instrumented.class })
class ReactiveLockPathTests {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.r2dbcTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockR2dbcAutoConfiguration.class, AdvisoryLockPrerequisitesAutoConfiguration.class))
		.withUserConfiguration(Config.class);

	@Test
	void aMonoCallEntersAtMost40MethodsIn23ClassesAndNoPackageTwice() {
		this.contextRunner.run((context) -> {
			Locked locked = context.getBean(Locked.class);
			locked.inTransaction("a").block(HANG);
			LibraryPath.arm();
			locked.inTransaction("a").block(HANG);
			LibraryPath.Path path = LibraryPath.path();
			LockPathTests.assertPath("Mono call", path, 40, 23);
			assertThat(path.bounces()).as("call stacks that enter a package again:%s", path.describe()).isEmpty();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		ConnectionFactory connectionFactory() {
			ConnectionFactory target = R2dbcConnectionFactories.direct(2);
			return new ConnectionFactory() {

				@Override
				public Publisher<? extends Connection> create() {
					return Mono.from(target.create()).map(ReactiveLockPathTests::capturing);
				}

				@Override
				public ConnectionFactoryMetadata getMetadata() {
					return target.getMetadata();
				}

			};
		}

		@Bean
		Locked locked() {
			return new Locked();
		}

	}

	static class Locked {

		@Transactional
		@AdvisoryLocked(namespace = "lock-path", key = "#name")
		public Mono<String> inTransaction(String name) {
			return Mono.just(name);
		}

	}

	/**
	 * Return a connection that tells the record of each statement it executes, and
	 * unwraps to the driver's, as a pool's does.
	 */
	static Connection capturing(Connection connection) {
		InvocationHandler handler = (proxy, method, args) -> {
			if (method.getName().equals("unwrap") && method.getParameterCount() == 0) {
				return connection;
			}
			Object result = invoke(method, connection, args);
			if (method.getName().equals("createStatement") && result instanceof Statement statement) {
				String sql = (String) args[0];
				return Proxy.newProxyInstance(ReactiveLockPathTests.class.getClassLoader(),
						new Class<?>[] { Statement.class }, (statementProxy, statementMethod, statementArgs) -> {
							if (statementMethod.getName().equals("execute")) {
								LibraryPath.onExecute(sql);
							}
							Object returned = invoke(statementMethod, statement, statementArgs);
							// Statement's builders return the statement: keep the proxy.
							return (returned == statement) ? statementProxy : returned;
						});
			}
			return result;
		};
		return (Connection) Proxy.newProxyInstance(ReactiveLockPathTests.class.getClassLoader(),
				new Class<?>[] { Connection.class, Wrapped.class }, handler);
	}

	private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

}
