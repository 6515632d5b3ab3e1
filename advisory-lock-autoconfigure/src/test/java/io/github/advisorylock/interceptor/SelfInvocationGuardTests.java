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

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests, from a user's view, of {@link AdvisoryLockOperations#assertHeld}: a method that
 * asserts its lock passes when called through the proxy, and fails loudly when a call on
 * {@code this} bypassed its {@code @AdvisoryLocked}.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class SelfInvocationGuardTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSource(),
				BootAutoConfigurations.dataSourceTransactionManager(), BootAutoConfigurations.transaction(),
				AdvisoryLockAutoConfiguration.class))
		.withPropertyValues(TestDatabase.get().springDataSourcePropertyValues())
		.withBean(Accounts.class);

	@Test
	void aCallThroughTheProxyRunsUnderTheLockItAsserts() {
		this.contextRunner
			.run((context) -> assertThatNoException().isThrownBy(() -> context.getBean(Accounts.class).withdraw(42L)));
	}

	@Test
	void aCallOnThisThatSkippedTheAnnotationFailsBeforeTheWork() {
		this.contextRunner.run((context) -> assertThatIllegalStateException()
			.isThrownBy(() -> context.getBean(Accounts.class).withdrawTwice(42L))
			.withMessageContaining("Advisory lock account:[42] is not held")
			.withMessageContaining("a call on 'this'"));
	}

	static class Accounts {

		private final ObjectProvider<AdvisoryLockOperations> locks;

		Accounts(ObjectProvider<AdvisoryLockOperations> locks) {
			this.locks = locks;
		}

		@Transactional
		@AdvisoryLocked(namespace = "account", key = "#accountId")
		public void withdraw(long accountId) {
			this.locks.getObject().assertHeld("account", accountId);
		}

		@Transactional
		public void withdrawTwice(long accountId) {
			// Both calls skip the proxy, so neither takes the lock that withdraw asserts.
			withdraw(accountId);
			withdraw(accountId);
		}

	}

}
