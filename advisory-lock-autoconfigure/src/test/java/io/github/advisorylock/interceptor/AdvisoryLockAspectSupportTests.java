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

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of {@link AdvisoryLockAspectSupport} handed its parts by hand, without an
 * application context or a proxy: a key value the lock operations refuse fails the call
 * naming the method and the expression that gave it, before the method runs. Keys are
 * refused before any connection is asked for, so the data source is never connected to.
 */
class AdvisoryLockAspectSupportTests {

	private final AdvisoryLockTemplate locks = new AdvisoryLockTemplate(new SimpleDriverDataSource());

	private final AdvisoryLockAspectSupport support;

	private final AtomicInteger bodyRuns = new AtomicInteger();

	AdvisoryLockAspectSupportTests() {
		LockKeyExpressionEvaluator evaluator = new LockKeyExpressionEvaluator(null);
		AdvisoryLockAttributeSource source = new AdvisoryLockAttributeSource(evaluator,
				new AdvisoryLockAttributeValidator(evaluator, null, null));
		this.support = new AdvisoryLockAspectSupport(() -> this.locks, () -> {
			throw new AssertionError("no reactive method here");
		}, source, evaluator);
	}

	@Test
	void aValueRefusedByTheKeyStrategyOfTheLockOperationsIsNamedByItsExpression() {
		// The lock operations have a derivation of their own: only they can tell which
		// value they refused.
		this.locks.setKeyStrategy((namespace, value) -> {
			if ("forbidden".equals(value)) {
				throw new InvalidLockKeyException("'forbidden' is reserved");
			}
			return AdvisoryLockKeys.of(namespace, value);
		});
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> call("pair", "ok", "forbidden"))
			.withMessage("@AdvisoryLocked " + Keys.class.getName() + ".pair(Object, Object): key '#b': "
					+ "'forbidden' is reserved")
			.withNoCause()
			.satisfies((ex) -> assertThat(ex.getKeyIndex()).isEqualTo(1));
		assertThat(this.bodyRuns).hasValue(0);
	}

	@Test
	void nullAndEmptyValuesAreNamedByTheirExpression() {
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> call("pair", "ok", null))
			.withMessageContaining(
					"Keys.pair(Object, Object): key '#b' gave null; every call must name " + "the resource to lock")
			.withNoCause();
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> call("pair", List.of(), "ok"))
			.withMessageContaining("key '#a' gave no value")
			.satisfies((ex) -> assertThat(ex.getKeyIndex()).isZero());
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> call("pair", "ok", new Long[0]))
			.withMessageContaining("key '#b' gave no value");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> call("pair", "ok", Arrays.asList(1L, null)))
			.withMessageContaining(
					"key '#b' gave a null element; every value of a collection or array " + "names a resource to lock")
			.withNoCause();
		assertThat(this.bodyRuns).hasValue(0);
	}

	@Test
	void anUnsupportedValueInACollectionIsNamedByItsExpression() {
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> call("pair", List.of(1L, 2L), List.of(3L, 2.5d)))
			.withMessageContaining("key '#b': Unsupported advisory lock key type java.lang.Double")
			.withMessageNotContaining("'#a'")
			.withNoCause();
		assertThat(this.bodyRuns).hasValue(0);
	}

	@Test
	void tooManyKeysNameEveryExpression() {
		this.locks.setMaxKeys(2);
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> call("pair", 1L, List.of(2L, 3L)))
			.withMessageContaining("keys '#a', '#b': ")
			.withMessageContaining("more than 2 distinct keys")
			.satisfies((ex) -> assertThat(ex.getKeyIndex()).isEqualTo(-1));
		assertThat(this.bodyRuns).hasValue(0);
	}

	private @Nullable Object call(String name, @Nullable Object... args) throws Throwable {
		Method method = ReflectionUtils.findMethod(Keys.class, name, Object.class, Object.class);
		assertThat(method).isNotNull();
		return this.support.execute(method, Keys.class, new Keys(), args, this.bodyRuns::incrementAndGet);
	}

	static class Keys {

		@AdvisoryLocked(namespace = "keys", key = { "#a", "#b" })
		public void pair(Object a, Object b) {
		}

	}

}
