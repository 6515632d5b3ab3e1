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

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Properties of the keys of one call ({@link LockKeys}) over generated collections with duplicates (jqwik).
 */
class LockKeysPropertyTests {

	private static final String NAMESPACE = "property";

	@Provide
	Arbitrary<Object> keyValues() {
		// Few distinct values, so that duplicates (also across types: 7 and "7") are frequent.
		return Arbitraries.oneOf(Arbitraries.integers().between(0, 20), Arbitraries.longs().between(0, 20),
				Arbitraries.integers().between(0, 20).map(String::valueOf), Arbitraries.of(LockMode.class),
				Arbitraries.of(UUID.fromString("4f1c2a9e-3b7d-4c55-9a2e-8d6f0b1c7e42"), new UUID(0, 1)));
	}

	@Provide
	Arbitrary<Object> anything() {
		return Arbitraries.oneOf(keyValues(), Arbitraries.doubles(), Arbitraries.strings().all().ofMaxLength(5),
				Arbitraries.just(List.of()), Arbitraries.just(new Object[0]), Arbitraries.just(new Object()),
				keyValues().list().ofMaxSize(3).map((list) -> (Object) list),
				Arbitraries.just(new long[] { 1L, 2L }))
			.injectNull(0.05);
	}

	@Property
	void keysAreTheDistinctKeysOfTheValuesInAscendingOrder(
			@ForAll @Size(min = 1, max = 40) List<@From("keyValues") Object> values) {
		LockKeys keys = LockKeys.resolve(NAMESPACE, List.of(values), LockKeyStrategy.standard(), 64);
		List<Long> expected = values.stream()
			.map((value) -> AdvisoryLockKeys.of(NAMESPACE, value))
			.distinct()
			.sorted()
			.toList();
		assertThat(keys.keys()).isEqualTo(expected);
		assertThat(keys.values()).hasSameSizeAs(expected);
	}

	@Property
	void neitherOrderNorDuplicatesNorNestingChangeTheKeys(
			@ForAll @Size(min = 1, max = 40) List<@From("keyValues") Object> values, @ForAll long seed) {
		List<Object> shuffledWithDuplicates = new ArrayList<>(values);
		shuffledWithDuplicates.addAll(values.subList(0, values.size() / 2 + 1));
		Collections.shuffle(shuffledWithDuplicates, new Random(seed));
		LockKeys asOneCollection = LockKeys.resolve(NAMESPACE, List.of(values), LockKeyStrategy.standard(), 64);
		LockKeys asSeparateArguments = LockKeys.resolve(NAMESPACE, shuffledWithDuplicates, LockKeyStrategy.standard(),
				64);
		LockKeys asArray = LockKeys.resolve(NAMESPACE, List.<Object>of(shuffledWithDuplicates.toArray()),
				LockKeyStrategy.standard(), 64);
		assertThat(asSeparateArguments).isEqualTo(asOneCollection);
		assertThat(asArray.keys()).isEqualTo(asOneCollection.keys());
	}

	@Property
	void anyArgumentsGiveKeysOrAnInvalidLockKeyException(
			@ForAll @Size(max = 6) List<@From("anything") Object> arguments,
			@ForAll @IntRange(min = 1, max = 8) int maxKeys) {
		Throwable thrown = catchThrowable(
				() -> LockKeys.resolve(NAMESPACE, arguments, LockKeyStrategy.standard(), maxKeys));
		if (thrown != null) {
			assertThat(thrown).isExactlyInstanceOf(InvalidLockKeyException.class);
		}
		else {
			assertThat(LockKeys.resolve(NAMESPACE, arguments, LockKeyStrategy.standard(), maxKeys).keys())
				.isNotEmpty()
				.hasSizeLessThanOrEqualTo(maxKeys)
				.isSorted()
				.doesNotHaveDuplicates();
		}
	}

	@Property
	void moreDistinctKeysThanTheLimitAreRefused(@ForAll @IntRange(min = 1, max = 10) int maxKeys,
			@ForAll @IntRange(min = 1, max = 5) int extra) {
		List<Object> values = new ArrayList<>();
		for (int i = 0; i < maxKeys + extra; i++) {
			values.add(i);
			values.add(String.valueOf(i));
		}
		Throwable thrown = catchThrowable(
				() -> LockKeys.resolve(NAMESPACE, List.of(values), LockKeyStrategy.standard(), maxKeys));
		assertThat(thrown).isExactlyInstanceOf(InvalidLockKeyException.class)
			.hasMessageContaining("more than " + maxKeys + " distinct keys");
		assertThat(LockKeys.resolve(NAMESPACE, List.of(values.subList(0, 2 * maxKeys)), LockKeyStrategy.standard(),
				maxKeys).keys()).hasSize(maxKeys);
	}

}
