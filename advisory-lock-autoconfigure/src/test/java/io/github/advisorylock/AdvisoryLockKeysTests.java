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

package io.github.advisorylock;

import java.math.BigInteger;
import java.time.LocalDate;
import java.util.Date;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link AdvisoryLockKeys}: the vectors every language must reproduce, and the
 * text of each value type.
 */
class AdvisoryLockKeysTests {

	@Test
	void matchesTheDesignVectors() {
		assertThat(AdvisoryLockKeys.of("setup_request", UUID.fromString("4f1c2a9e-3b7d-4c55-9a2e-8d6f0b1c7e42")))
			.isEqualTo(6095841564336024125L);
		assertThat(AdvisoryLockKeys.of("account", 42)).isEqualTo(4097093253131737194L);
		assertThat(AdvisoryLockKeys.of("job", "nightly-reconciliation")).isEqualTo(-727884580973027650L);
	}

	@Test
	void permitSlotsMatchTheVectorsOfTheKeysPage() {
		long key = AdvisoryLockKeys.of("export", "42");
		assertThat(key).isEqualTo(-9073521392533916044L);
		assertThat(AdvisoryLockKeys.permitSlot(key, 0)).isEqualTo(key);
		assertThat(AdvisoryLockKeys.permitSlot(key, 1)).isEqualTo(-5689487604713982724L);
		assertThat(AdvisoryLockKeys.permitSlot(key, 2)).isEqualTo(-3967452755184654293L);
		assertThat(AdvisoryLockKeys.permitSlot(key, 3)).isEqualTo(-4605592311180652947L);
		assertThat(AdvisoryLockKeys.permitSlot(0L, 1)).isEqualTo(-2448178028541914246L);
		assertThatIllegalArgumentException().isThrownBy(() -> AdvisoryLockKeys.permitSlot(key, -1))
			.withMessage("Permit slot must be at least 0, was -1");
	}

	@Test
	void uuidIsHashedInCanonicalLowerCase() {
		UUID id = UUID.fromString("4F1C2A9E-3B7D-4C55-9A2E-8D6F0B1C7E42");
		assertThat(AdvisoryLockKeys.of("setup_request", id))
			.isEqualTo(AdvisoryLockKeys.of("setup_request", "4f1c2a9e-3b7d-4c55-9a2e-8d6f0b1c7e42"));
	}

	@Test
	void integralNumbersAreHashedInDecimal() {
		long expected = AdvisoryLockKeys.of("account", "42");
		assertThat(AdvisoryLockKeys.of("account", (byte) 42)).isEqualTo(expected);
		assertThat(AdvisoryLockKeys.of("account", (short) 42)).isEqualTo(expected);
		assertThat(AdvisoryLockKeys.of("account", 42)).isEqualTo(expected);
		assertThat(AdvisoryLockKeys.of("account", 42L)).isEqualTo(expected);
		assertThat(AdvisoryLockKeys.of("account", BigInteger.valueOf(42))).isEqualTo(expected);
		assertThat(AdvisoryLockKeys.of("account", -7L)).isEqualTo(AdvisoryLockKeys.of("account", "-7"));
	}

	@Test
	void enumIsHashedByName() {
		assertThat(AdvisoryLockKeys.of("mode", Plan.PRO)).isEqualTo(AdvisoryLockKeys.of("mode", "PRO"));
	}

	@Test
	void refusesRecordsAskingToNameTheComponent() {
		// A record's toString() carries Java's class and component names: no other
		// language derives that text.
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> AdvisoryLockKeys.of("withdrawal", new AccountDay(42, "2026-11-30")))
			.withMessageContaining("record " + AccountDay.class.getName())
			.withMessageContaining("name the component in the key expression, for example #cmd.userId()");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> AdvisoryLockKeys.text(new AccountDay(42, "2026-11-30")));
	}

	@Test
	void anyCharSequenceIsHashedAsIs() {
		assertThat(AdvisoryLockKeys.of("job", new StringBuilder("nightly-reconciliation")))
			.isEqualTo(-727884580973027650L);
	}

	@Test
	void namespaceScopesTheKey() {
		assertThat(AdvisoryLockKeys.of("account", 42)).isNotEqualTo(AdvisoryLockKeys.of("withdrawal", 42));
	}

	@Test
	void refusesTypesWhoseTextDiffersBetweenLanguages() {
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> AdvisoryLockKeys.of("a", 1.5d))
			.withMessageContaining("java.lang.Double")
			.withMessageContaining("convert the value in the key expression")
			.withMessageNotContaining("record");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> AdvisoryLockKeys.of("a", LocalDate.of(2026, 11, 30)));
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> AdvisoryLockKeys.of("a", new Date()));
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> AdvisoryLockKeys.of("a", new Object()));
	}

	@Test
	void aNullValueIsRefused() {
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> AdvisoryLockKeys.of("a", null))
			.withMessageContaining("must not be null");
	}

	@Test
	void aBlankNamespaceIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> AdvisoryLockKeys.of(" ", 1))
			.withMessageContaining("namespace must not be blank");
	}

	@Test
	void printableEscapesLineBreaksAndControlCharactersAndCutsLongValues() {
		assertThat(AdvisoryLockKeys.printable("plain value")).isEqualTo("plain value");
		assertThat(AdvisoryLockKeys.printable("a\nb\r\tc\u0000d\u2028e")).isEqualTo("a\\nb\\r\\tc\\u0000d\\u2028e");
		String limit = "x".repeat(AdvisoryLockKeys.MAX_PRINTED_LENGTH);
		assertThat(AdvisoryLockKeys.printable(limit)).isEqualTo(limit);
		assertThat(AdvisoryLockKeys.printable(limit + "y")).hasSize(AdvisoryLockKeys.MAX_PRINTED_LENGTH)
			.endsWith("x...");
		// An escape or a surrogate pair is never split by the cut.
		assertThat(AdvisoryLockKeys.printable("x".repeat(156) + "\n" + "x".repeat(10)))
			.isEqualTo("x".repeat(156) + "...");
		assertThat(AdvisoryLockKeys.printable("x".repeat(156) + "\uD83D\uDE00" + "x".repeat(10)))
			.isEqualTo("x".repeat(156) + "...");
		assertThat(AdvisoryLockKeys.printable("job\n", List.of("1", "a\nb"))).isEqualTo("job\\n:[1, a\\nb]");
	}

	enum Plan {

		FREE, PRO

	}

	record AccountDay(long account, String day) {

	}

}
