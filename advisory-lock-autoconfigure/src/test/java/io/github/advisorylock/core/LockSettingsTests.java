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

package io.github.advisorylock.core;

import java.time.Duration;
import java.util.List;

import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests of the settings value both templates read: each setting replaced alone, the
 * checks' words, and what a request reads from it.
 */
class LockSettingsTests {

	private final LockSettings defaults = LockSettings.of(Duration.ofSeconds(2));

	@Test
	void aNewTemplateDerivesKeysTheStandardWayTakesAtMost64AndHasNoListener() {
		assertThat(this.defaults.keyStrategy()).isSameAs(LockKeyStrategy.standard());
		assertThat(this.defaults.maxKeys()).isEqualTo(64);
		assertThat(this.defaults.listeners()).isSameAs(LockAcquisitionListeners.NONE);
	}

	@Test
	void eachSettingIsReplacedAloneAndTheOldValueStaysAsItWas() {
		LockKeyStrategy strategy = (namespace, value) -> 7L;
		LockAcquisitionListener listener = (namespace, scope, mode, waitMode, keys, values) -> Acquisition.IGNORED;
		LockSettings changed = this.defaults.withDefaultTimeout(Duration.ofSeconds(5))
			.withKeyStrategy(strategy)
			.withMaxKeys(3)
			.withListeners(List.of(listener));
		assertThat(changed.defaultTimeout()).isEqualTo(Duration.ofSeconds(5));
		assertThat(changed.keyStrategy()).isSameAs(strategy);
		assertThat(changed.maxKeys()).isEqualTo(3);
		assertThat(changed.listeners()).isNotSameAs(LockAcquisitionListeners.NONE);
		assertThat(this.defaults).isEqualTo(LockSettings.of(Duration.ofSeconds(2)));
		assertThat(changed.withListeners(List.of()).listeners()).isSameAs(LockAcquisitionListeners.NONE);
	}

	@Test
	void aBlockWaitsForItsOwnTimeoutOrTheDefault() {
		assertThat(this.defaults.timeout(LockRequest.of("n", 1))).isEqualTo(Duration.ofSeconds(2));
		assertThat(this.defaults.timeout(LockRequest.of("n", 1).withTimeout(Duration.ofMillis(300))))
			.isEqualTo(Duration.ofMillis(300));
	}

	@Test
	void keysAreDerivedWithTheStrategyAndBoundedByMaxKeys() {
		LockSettings settings = this.defaults.withKeyStrategy((namespace, value) -> ((Integer) value).longValue())
			.withMaxKeys(2);
		assertThat(LockKeys.resolve(LockRequest.of("n", 2, 1), settings).keys()).containsExactly(1L, 2L);
		assertThatIllegalArgumentException().isThrownBy(() -> LockKeys.resolve(LockRequest.of("n", 1, 2, 3), settings))
			.withMessageContaining("advisory-lock.max-keys");
	}

	@Test
	void theChecksNameThePropertyToCorrect() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.defaults.withMaxKeys(0))
			.withMessage("advisory-lock.max-keys must be positive, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> this.defaults.withKeyStrategy(null))
			.withMessage("LockKeyStrategy must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> LockSettings.checkHeartbeat(Duration.ofMillis(99)))
			.withMessage("advisory-lock.invocation.heartbeat must be between 100ms and 1h, was PT0.099S");
		assertThatIllegalArgumentException().isThrownBy(() -> LockSettings.checkMaxConnections(0))
			.withMessage("advisory-lock.invocation.max-connections must be positive, was 0");
	}

}
