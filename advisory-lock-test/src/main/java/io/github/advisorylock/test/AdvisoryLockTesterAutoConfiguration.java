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

package io.github.advisorylock.test;

import io.github.advisorylock.LockKeyStrategy;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link AdvisoryLockTester}, imported by
 * {@link AutoConfigureAdvisoryLockTester @AutoConfigureAdvisoryLockTester} (it is not
 * applied otherwise). The tester works on the application's default {@code DataSource}
 * (the only one, or the primary one) or, without one, its default R2DBC
 * {@code ConnectionFactory}, and derives keys with its {@link LockKeyStrategy}.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration",
		"io.github.advisorylock.autoconfigure.AdvisoryLockR2dbcAutoConfiguration" })
public final class AdvisoryLockTesterAutoConfiguration {

	AdvisoryLockTesterAutoConfiguration() {
	}

	@Bean
	static LockedKeys advisoryLockTesterLockedKeys() {
		return new LockedKeys();
	}

	@Bean
	static LockedBodies advisoryLockTesterLockedBodies() {
		return new LockedBodies();
	}

	@Bean
	static LockedBodies.PostProcessor advisoryLockTesterLockedBodiesPostProcessor(LockedBodies lockedBodies) {
		return new LockedBodies.PostProcessor(lockedBodies);
	}

	@Bean
	AdvisoryLockTester advisoryLockTester(ListableBeanFactory beanFactory, LockedKeys lockedKeys,
			LockedBodies lockedBodies) {
		LockKeyStrategy keyStrategy = beanFactory.getBeanProvider(LockKeyStrategy.class)
			.getIfAvailable(LockKeyStrategy::standard);
		return new AdvisoryLockTester(TestSessions.of(beanFactory), keyStrategy, lockedKeys, lockedBodies);
	}

}
