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

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.InvocationLockDataSource;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The path of an annotated blocking call to its lock statement: the distinct library
 * methods and classes it enters from {@link AdvisoryLockInterceptor#invoke} until the
 * statement executes, as {@link LibraryPath} counts them, and the call stacks on which a
 * package is entered again after another one. Each call is made once before it is
 * counted, so that what a first call fills (the parsed annotation, the parsed
 * expressions) is not counted: the path is the one every later call takes. The bounds are
 * the counts of the path as it is, lowered as the issue "Core decides, each stack
 * executes" shortens it, so that a method or a class added on the way fails this test;
 * its output prints the path, the counts, the packages crossed and the bounces. A
 * template's settings, its lifecycle and the plan of a call are classes of their own on
 * every path (docs/decisions.md, "Core decides, each stack executes").
 *
 * @see ReactiveLockPathTests
 */
@Tag("lock-path")
@ExtendWith({ NoAdvisoryLocksLeft.class, LibraryPath.Instrumented.class })
class LockPathTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
		.withUserConfiguration(Config.class);

	@Test
	void aTransactionScopedCallWithANameKeyAndAnExpressionKeyEntersAtMost34MethodsIn22ClassesAndNoPackageTwice() {
		this.contextRunner.run((context) -> {
			Locked locked = context.getBean(Locked.class);
			locked.inTransaction("a", 7);
			LibraryPath.arm();
			locked.inTransaction("a", 7);
			LibraryPath.Path path = LibraryPath.path();
			assertPath("transaction-scoped JDBC call", path, 34, 22);
			assertThat(path.bounces()).as("call stacks that enter a package again:%s", path.describe()).isEmpty();
		});
	}

	@Test
	void anInvocationScopedCallEntersAtMost35MethodsIn20ClassesAndNoPackageTwice() {
		this.contextRunner.run((context) -> {
			Locked locked = context.getBean(Locked.class);
			locked.forTheCall("a");
			LibraryPath.arm();
			locked.forTheCall("a");
			LibraryPath.Path path = LibraryPath.path();
			assertPath("invocation-scoped JDBC call", path, 35, 20);
			assertThat(path.bounces()).as("call stacks that enter a package again:%s", path.describe()).isEmpty();
		});
	}

	static void assertPath(String call, LibraryPath.Path path, int maxMethods, int maxClasses) {
		String described = path.describe();
		// Printed for the record (the note gives the paths), whatever the
		// outcome.
		System.out.println("== path of a " + call + ":" + described);
		assertThat(path.methods()).as("library methods entered on the way to the lock statement:%s", described)
			.isLessThanOrEqualTo(maxMethods);
		assertThat(path.classes()).as("library classes entered on the way to the lock statement:%s", described)
			.isLessThanOrEqualTo(maxClasses);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		DataSource dataSource() {
			return new CapturingDataSource(TestDatabase.get().dataSource());
		}

		@Bean(defaultCandidate = false)
		@InvocationLockDataSource
		DataSource lockDataSource() {
			return new CapturingDataSource(TestDatabase.get().dataSource());
		}

		@Bean
		Locked locked() {
			return new Locked();
		}

	}

	static class Locked {

		@Transactional
		@AdvisoryLocked(namespace = "lock-path", key = { "#name", "'region-' + #region" })
		public void inTransaction(String name, int region) {
		}

		@AdvisoryLocked(namespace = "lock-path", key = "#name", scope = LockScope.INVOCATION)
		public void forTheCall(String name) {
		}

	}

	static final class CapturingDataSource extends DelegatingDataSource {

		CapturingDataSource(DataSource target) {
			super(target);
		}

		@Override
		public Connection getConnection() throws SQLException {
			return LibraryPath.capturing(super.getConnection());
		}

	}

}
