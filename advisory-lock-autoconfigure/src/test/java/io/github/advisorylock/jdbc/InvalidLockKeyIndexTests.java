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

package io.github.advisorylock.jdbc;

import java.util.Arrays;
import java.util.List;

import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Tests that a refused key value tells its place among the keys of the request
 * ({@link InvalidLockKeyException#getKeyIndex()}), as an application that builds a
 * {@link LockRequest} sees it. Keys are refused before any connection is asked for, so
 * the data source is never connected to.
 */
class InvalidLockKeyIndexTests {

	private final AdvisoryLockTemplate locks = new AdvisoryLockTemplate(new SimpleDriverDataSource());

	@Test
	void aNullValueTellsItsIndex() {
		assertThat(refusal(LockRequest.of("n", 1, null))).satisfies((ex) -> {
			assertThat(ex.getKeyIndex()).isEqualTo(1);
			assertThat(ex).hasMessage("Advisory lock key value must not be null");
		});
	}

	@Test
	void anEmptyCollectionOrArrayTellsItsIndex() {
		assertThat(refusal(LockRequest.of("n", 1, 2, List.of()))).satisfies((ex) -> {
			assertThat(ex.getKeyIndex()).isEqualTo(2);
			assertThat(ex).hasMessageContaining("must not be empty");
		});
		assertThat(refusal(LockRequest.of("n", new Object[0], 1)).getKeyIndex()).isZero();
	}

	@Test
	void aCollectionHoldingARefusedValueTellsTheIndexOfTheCollection() {
		assertThat(refusal(LockRequest.of("n", List.of(1, 2), List.of(3, 2.5d)))).satisfies((ex) -> {
			assertThat(ex.getKeyIndex()).isEqualTo(1);
			assertThat(ex).hasMessageContaining("Unsupported advisory lock key type java.lang.Double").hasNoCause();
		});
		assertThat(refusal(LockRequest.of("n", 1, Arrays.asList(2, null))).getKeyIndex()).isEqualTo(1);
	}

	@Test
	void aRefusalOfAnApplicationsKeyStrategyTellsItsIndexWithItsMessageAndCause() {
		IllegalStateException cause = new IllegalStateException("odd");
		this.locks.setKeyStrategy((namespace, value) -> {
			if (value instanceof Integer number && number % 2 != 0) {
				throw new InvalidLockKeyException("odd keys are not supported", cause);
			}
			return ((Number) value).longValue();
		});
		assertThat(refusal(LockRequest.of("n", 2, 4, 5))).satisfies((ex) -> {
			assertThat(ex.getKeyIndex()).isEqualTo(2);
			assertThat(ex).hasMessage("odd keys are not supported").hasCause(cause);
		});
	}

	@Test
	void anInvocationScopedRequestTellsTheIndexToo() {
		LockRequest request = LockRequest.of("n", "a", null).withScope(LockScope.INVOCATION);
		InvalidLockKeyException refused = catchThrowableOfType(InvalidLockKeyException.class,
				() -> this.locks.execute(request, (handle) -> "ran"));
		assertThat(refused).isNotNull();
		assertThat(refused.getKeyIndex()).isEqualTo(1);
	}

	@Test
	void aRefusalOfTheWholeCallTellsNoIndex() {
		this.locks.setMaxKeys(2);
		assertThat(refusal(LockRequest.of("n", 1, List.of(2, 3)))).satisfies((ex) -> {
			assertThat(ex.getKeyIndex()).isEqualTo(-1);
			assertThat(ex).hasMessageContaining("more than 2 distinct keys");
		});
		assertThat(refusal(LockRequest.of("n")).getKeyIndex()).isEqualTo(-1);
	}

	@Test
	void aRequestThatNamesItsCallerAndItsKeysIsNamedInItsKeyErrors() {
		LockRequest request = LockRequest.of("export", "acme", null)
			.withCaller("nightly export", List.of("tenant", "region"));
		assertThat(refusal(request)).satisfies((ex) -> {
			assertThat(ex.getKeyIndex()).isEqualTo(1);
			assertThat(ex)
				.hasMessage("nightly export: key 'region' gave null; every call must name the resource to " + "lock");
		});
		this.locks.setMaxKeys(1);
		assertThat(refusal(LockRequest.of("export", "acme", "eu").withCaller("nightly export", List.of("t", "r"))))
			.hasMessageStartingWith("nightly export: keys 't', 'r': An advisory lock call in namespace 'export' names "
					+ "more than 1 distinct keys");
	}

	@Test
	void aRequestThatNamesItsCallerIsNamedFirstInItsRefusal() {
		// No transaction: refused before any connection is asked for.
		assertThatExceptionOfType(LockTransactionException.class)
			.isThrownBy(() -> this.locks.lock(LockRequest.of("export", "acme").withCaller("nightly export", List.of())))
			.withMessageStartingWith("nightly export: Advisory lock 'export' needs an actual transaction");
	}

	@Test
	void anExceptionMadeWithoutAnIndexTellsNone() {
		assertThat(new InvalidLockKeyException("refused").getKeyIndex()).isEqualTo(-1);
		assertThat(new InvalidLockKeyException("refused", new IllegalStateException()).getKeyIndex()).isEqualTo(-1);
		assertThat(new InvalidLockKeyException("refused", 3, null).getKeyIndex()).isEqualTo(3);
	}

	private InvalidLockKeyException refusal(LockRequest request) {
		InvalidLockKeyException refused = catchThrowableOfType(InvalidLockKeyException.class,
				() -> this.locks.lock(request));
		assertThat(refused).as("the refusal of %s", request).isNotNull();
		return refused;
	}

}
