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
import java.util.List;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.InvocationLockDataSource;
import io.github.advisorylock.test.BootAutoConfigurations;
import io.github.advisorylock.test.NoAdvisoryLocksLeft;
import io.github.advisorylock.test.TestDatabase;
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
 * How deep an annotated blocking call goes before its lock statement executes: the
 * library methods on the stack between {@link AdvisoryLockInterceptor#invoke} and the
 * statement, and the distinct library classes among them. The bounds are those of the
 * issue "One lock flow": the sequence of a request is written once, and each layer is
 * entered once, so that a reader follows a call in a few files. A layer added on the way
 * fails this test, whose message prints the path.
 *
 * @see ReactiveLockFlowDepthTests
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class LockFlowDepthTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
		.withUserConfiguration(Config.class);

	@Test
	void aTransactionScopedCallReachesItsLockStatementWithinTwelveMethodsInSevenClasses() {
		this.contextRunner.run((context) -> {
			LockStatementStacks stacks = context.getBean(LockStatementStacks.class);
			context.getBean(Locked.class).inTransaction("a");
			assertDepth(stacks.first(), 12, 7);
		});
	}

	@Test
	void anInvocationScopedCallReachesItsLockStatementWithinFifteenMethods() {
		this.contextRunner.run((context) -> {
			LockStatementStacks stacks = context.getBean(LockStatementStacks.class);
			context.getBean(Locked.class).forTheCall("a");
			assertDepth(stacks.first(), 15, 15);
		});
	}

	static void assertDepth(List<StackWalker.StackFrame> frames, int maxFrames, int maxClasses) {
		String path = LockStatementStacks.describe(frames);
		// Printed for the record (the note gives the three paths), whatever the
		// outcome.
		System.out.println("== lock flow: " + frames.size() + " library methods in "
				+ LockStatementStacks.classes(frames) + " classes:" + path);
		assertThat(frames).as("library methods on the way to the lock statement:%s", path)
			.hasSizeLessThanOrEqualTo(maxFrames);
		assertThat(LockStatementStacks.classes(frames)).as("library classes on the way to the lock statement:%s", path)
			.isLessThanOrEqualTo(maxClasses);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		LockStatementStacks lockStatementStacks() {
			return new LockStatementStacks();
		}

		@Bean
		DataSource dataSource(LockStatementStacks stacks) {
			return new CapturingDataSource(TestDatabase.get().dataSource(), stacks);
		}

		@Bean(defaultCandidate = false)
		@InvocationLockDataSource
		DataSource lockDataSource(LockStatementStacks stacks) {
			return new CapturingDataSource(TestDatabase.get().dataSource(), stacks);
		}

		@Bean
		Locked locked() {
			return new Locked();
		}

	}

	static class Locked {

		@Transactional
		@AdvisoryLocked(namespace = "flow-depth", key = "#name")
		public void inTransaction(String name) {
		}

		@AdvisoryLocked(namespace = "flow-depth", key = "#name", scope = LockScope.INVOCATION)
		public void forTheCall(String name) {
		}

	}

	static final class CapturingDataSource extends DelegatingDataSource {

		private final LockStatementStacks stacks;

		CapturingDataSource(DataSource target, LockStatementStacks stacks) {
			super(target);
			this.stacks = stacks;
		}

		@Override
		public Connection getConnection() throws SQLException {
			return this.stacks.capturing(super.getConnection());
		}

	}

}
