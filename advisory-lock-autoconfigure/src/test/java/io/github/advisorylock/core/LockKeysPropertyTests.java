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

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.testsupport.Generated;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static io.github.advisorylock.testsupport.Generated.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Properties of the keys of one call ({@link LockKeys}) over generated collections with
 * duplicates ({@link Generated}).
 */
@ExtendWith(Generated.ReportSeed.class)
class LockKeysPropertyTests {

	private static final String NAMESPACE = "property";

	static Stream<Named<List<Object>>> keyValueLists() {
		return Generated.cases(1_000, (generated) -> generated.list(1, 40, () -> keyValue(generated)));
	}

	static Stream<Arguments> keyValueListsAndSeeds() {
		return Generated.generate(1_000,
				(generated) -> arguments(named(generated.list(1, 40, () -> keyValue(generated))), generated.anyLong()));
	}

	static Stream<Arguments> argumentsAndLimits() {
		return Generated.generate(1_000,
				(generated) -> arguments(named(generated.list(0, 6, () -> anything(generated))),
						generated.between(1, 8)));
	}

	/**
	 * Every limit from 1 to 10 with 1 to 5 keys too many: 50 cases, all of them rather
	 * than a sample.
	 */
	static Stream<Arguments> limitsAndExcess() {
		return IntStream.rangeClosed(1, 10)
			.boxed()
			.flatMap((maxKeys) -> IntStream.rangeClosed(1, 5).mapToObj((extra) -> arguments(maxKeys, extra)));
	}

	/**
	 * Few distinct values, so that duplicates (also across types: 7 and "7") are
	 * frequent.
	 */
	private static Object keyValue(Generated generated) {
		return generated.anyOf(() -> generated.between(0, 20), () -> generated.between(0L, 20L),
				() -> String.valueOf(generated.between(0, 20)), () -> generated.oneOf(LockMode.class),
				() -> generated.oneOf(UUID.fromString("4f1c2a9e-3b7d-4c55-9a2e-8d6f0b1c7e42"), new UUID(0, 1)));
	}

	private static Object anything(Generated generated) {
		if (generated.chance(0.05)) {
			return null;
		}
		return generated.anyOf(() -> keyValue(generated), () -> Double.longBitsToDouble(generated.anyLong()),
				() -> generated.utf16(5), List::of, () -> new Object[0], Object::new,
				() -> generated.list(0, 3, () -> keyValue(generated)), () -> new long[] { 1L, 2L });
	}

	@ParameterizedTest
	@MethodSource("keyValueLists")
	void keysAreTheDistinctKeysOfTheValuesInAscendingOrder(List<Object> values) {
		LockKeys keys = LockKeys.resolve(NAMESPACE, List.of(values), LockKeyStrategy.standard(), 64);
		List<Long> expected = values.stream()
			.map((value) -> AdvisoryLockKeys.of(NAMESPACE, value))
			.distinct()
			.sorted()
			.toList();
		assertThat(keys.keys()).isEqualTo(expected);
		assertThat(keys.values()).hasSameSizeAs(expected);
	}

	@ParameterizedTest
	@MethodSource("keyValueListsAndSeeds")
	void neitherOrderNorDuplicatesNorNestingChangeTheKeys(List<Object> values, long seed) {
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

	@ParameterizedTest
	@MethodSource("argumentsAndLimits")
	void anyArgumentsGiveKeysOrAnInvalidLockKeyException(List<Object> arguments, int maxKeys) {
		Throwable thrown = catchThrowable(
				() -> LockKeys.resolve(NAMESPACE, arguments, LockKeyStrategy.standard(), maxKeys));
		if (thrown != null) {
			assertThat(thrown).isExactlyInstanceOf(InvalidLockKeyException.class);
		}
		else {
			assertThat(LockKeys.resolve(NAMESPACE, arguments, LockKeyStrategy.standard(), maxKeys).keys()).isNotEmpty()
				.hasSizeLessThanOrEqualTo(maxKeys)
				.isSorted()
				.doesNotHaveDuplicates();
		}
	}

	@ParameterizedTest
	@MethodSource("limitsAndExcess")
	void moreDistinctKeysThanTheLimitAreRefused(int maxKeys, int extra) {
		List<Object> values = new ArrayList<>();
		for (int i = 0; i < maxKeys + extra; i++) {
			values.add(i);
			values.add(String.valueOf(i));
		}
		Throwable thrown = catchThrowable(
				() -> LockKeys.resolve(NAMESPACE, List.of(values), LockKeyStrategy.standard(), maxKeys));
		assertThat(thrown).isExactlyInstanceOf(InvalidLockKeyException.class)
			.hasMessageContaining("more than " + maxKeys + " distinct keys");
		assertThat(LockKeys
			.resolve(NAMESPACE, List.of(values.subList(0, 2 * maxKeys)), LockKeyStrategy.standard(), maxKeys)
			.keys()).hasSize(maxKeys);
	}

}
