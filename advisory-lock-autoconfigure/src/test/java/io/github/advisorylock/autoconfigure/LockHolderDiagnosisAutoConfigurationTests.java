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

import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.pglocks.PgLocksHolderDiagnosis;
import io.github.advisorylock.test.BootAutoConfigurations;
import io.github.advisorylock.test.LockHolder;
import io.github.advisorylock.test.NoAdvisoryLocksLeft;
import io.github.advisorylock.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the auto-configuration of the diagnosis of busy locks.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class LockHolderDiagnosisAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
		.withBean(DataSource.class, () -> TestDatabase.get().dataSource());

	private final String namespace = "autoconfigured-diagnosis-" + UUID.randomUUID();

	@Test
	void timeoutsNameTheirHoldersByDefault() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockHolderDiagnosis.class);
			try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
					AdvisoryLockKeys.of(this.namespace, 1))) {
				assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> lockWithin(context, 100))
					.satisfies((ex) -> assertThat(ex).hasMessageContaining("held by pid " + holder.pid()));
			}
		});
	}

	@Test
	void diagnosisCanBeTurnedOff() {
		this.contextRunner.withPropertyValues("advisory-lock.diagnosis.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LockHolderDiagnosis.class);
			try (LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource(),
					AdvisoryLockKeys.of(this.namespace, 1))) {
				assertThatExceptionOfType(LockBusyException.class).isThrownBy(() -> lockWithin(context, 100))
					.satisfies((ex) -> {
						assertThat(ex.isDiagnosed()).isFalse();
						assertThat(ex).hasMessageNotContaining("held by").hasMessageNotContaining("not diagnosed");
					});
			}
		});
	}

	@Test
	void diagnosisTimeoutBindsAndMustBeAtLeastOneSecond() {
		this.contextRunner.withPropertyValues("advisory-lock.diagnosis.timeout=3s")
			.run((context) -> assertThat(context.getBean(PgLocksHolderDiagnosis.class).getTimeout())
				.isEqualTo(Duration.ofSeconds(3)));
		this.contextRunner.withPropertyValues("advisory-lock.diagnosis.timeout=500ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("advisory-lock.diagnosis.timeout must be at least 1s"));
	}

	private void lockWithin(AssertableApplicationContext context, long millis) {
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> context.getBean(AdvisoryLockOperations.class)
				.lock(LockRequest.of(this.namespace, 1).withTimeout(Duration.ofMillis(millis))));
	}

}
