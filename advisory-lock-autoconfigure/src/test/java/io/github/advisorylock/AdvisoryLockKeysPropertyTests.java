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

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import io.github.advisorylock.testsupport.Generated;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static io.github.advisorylock.testsupport.Generated.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Properties of {@link AdvisoryLockKeys} over generated values ({@link Generated}): any
 * Unicode text, numbers, UUIDs, enums, and values of every other kind, records among
 * them.
 */
@ExtendWith(Generated.ReportSeed.class)
class AdvisoryLockKeysPropertyTests {

	static Stream<Arguments> namespacesAndKeyValues() {
		return Generated.generate(1_000,
				(generated) -> arguments(named(namespace(generated)), named(keyValue(generated))));
	}

	static Stream<Arguments> namespacesAndKeyValueLists() {
		return Generated.generate(200, (generated) -> arguments(named(namespace(generated)),
				named(generated.list(1, 25, () -> keyValue(generated)))));
	}

	static Stream<Arguments> namespacesAndAnything() {
		return Generated.generate(1_000,
				(generated) -> arguments(named(namespace(generated)), named(anything(generated))));
	}

	static Stream<Arguments> namespacesAndUtf16Texts() {
		return Generated.generate(1_000,
				(generated) -> arguments(named(namespace(generated)), named(generated.utf16(20))));
	}

	/** Not blank, and with a UTF-8 form. */
	private static String namespace(Generated generated) {
		String namespace = generated.text(40);
		while (namespace.isBlank()) {
			namespace = generated.text(40);
		}
		return namespace;
	}

	/** A value of each supported kind. */
	private static Object keyValue(Generated generated) {
		return generated.anyOf(() -> generated.text(40), () -> (byte) generated.between(Byte.MIN_VALUE, Byte.MAX_VALUE),
				() -> (short) generated.between(Short.MIN_VALUE, Short.MAX_VALUE), generated::anyInt,
				generated::anyLong, () -> generated.bigInteger(200), generated::uuid,
				() -> generated.oneOf(LockMode.class));
	}

	/** A record of any components. */
	private static Order order(Generated generated) {
		return new Order(generated.text(40), generated.anyInt(), generated.uuid());
	}

	/**
	 * Anything a key expression might give: supported values, and null, floats, dates,
	 * collections, objects.
	 */
	private static Object anything(Generated generated) {
		if (generated.chance(0.05)) {
			return null;
		}
		return generated.anyOf(() -> keyValue(generated), () -> generated.utf16(20),
				() -> generated.oneOf(0.0, -0.0, Double.NaN, Double.NEGATIVE_INFINITY, Double.MAX_VALUE,
						Double.longBitsToDouble(generated.anyLong())),
				() -> Float.intBitsToFloat(generated.anyInt()),
				() -> (char) generated.between(Character.MIN_VALUE, Character.MAX_VALUE),
				() -> generated.oneOf(true, false), () -> LocalDate.ofEpochDay(generated.between(0, 50_000)),
				() -> generated.list(0, 3, generated::anyInt), Object::new, () -> new int[] { 1 },
				() -> order(generated));
	}

	static Stream<Arguments> namespacesAndRecords() {
		return Generated.generate(1_000,
				(generated) -> arguments(named(namespace(generated)), named(order(generated))));
	}

	@ParameterizedTest
	@MethodSource("namespacesAndKeyValues")
	void derivationIsDeterministic(String namespace, Object value) {
		assertThat(AdvisoryLockKeys.of(namespace, value)).isEqualTo(AdvisoryLockKeys.of(namespace, value));
		// Equal values derive equal keys, whatever the instance.
		assertThat(AdvisoryLockKeys.of(new String(namespace), value))
			.isEqualTo(AdvisoryLockKeys.of(namespace, AdvisoryLockKeys.text(value)));
	}

	@ParameterizedTest
	@MethodSource("namespacesAndKeyValues")
	void keyIsTheFirstEightBytesOfTheSha256OfTheUtf8Text(String namespace, Object value) throws Exception {
		byte[] utf8 = strictUtf8(namespace + ":" + AdvisoryLockKeys.text(value));
		assertThat(AdvisoryLockKeys.of(namespace, value)).isEqualTo(firstEightBytes(utf8));
	}

	@ParameterizedTest
	@MethodSource("namespacesAndKeyValueLists")
	void sqlExpressionGivesTheSameKeysInPostgreSQL(String namespace, List<Object> values) throws SQLException {
		List<String> texts = values.stream().map(AdvisoryLockKeys::text).toList();
		List<Long> java = values.stream().map((value) -> AdvisoryLockKeys.of(namespace, value)).toList();
		assertThat(sqlKeys(namespace, texts)).isEqualTo(java);
	}

	@ParameterizedTest
	@MethodSource("namespacesAndAnything")
	void anyValueGivesAKeyOrAnInvalidLockKeyException(String namespace, Object value) {
		Throwable thrown = catchThrowable(() -> AdvisoryLockKeys.of(namespace, value));
		if (thrown != null) {
			assertThat(thrown).isExactlyInstanceOf(InvalidLockKeyException.class).hasMessageContaining("key");
		}
	}

	@ParameterizedTest
	@MethodSource("namespacesAndRecords")
	void recordsAreRefusedWhateverTheirComponents(String namespace, Order value) {
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> AdvisoryLockKeys.of(namespace, value))
			.withMessageContaining("name the component");
	}

	@ParameterizedTest
	@MethodSource("namespacesAndUtf16Texts")
	void anyStringWithAUtf8FormGetsItsKeyAndAnyOtherIsRefused(String namespace, String text) throws Exception {
		byte[] utf8;
		try {
			utf8 = strictUtf8(namespace + ":" + text);
		}
		catch (CharacterCodingException ex) {
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> AdvisoryLockKeys.of(namespace, text))
				.withMessageContaining("lone UTF-16 surrogate");
			return;
		}
		assertThat(AdvisoryLockKeys.of(namespace, text)).isEqualTo(firstEightBytes(utf8));
	}

	/**
	 * Encode as UTF-8, refusing what has no UTF-8 form (where {@code getBytes} would
	 * substitute '?').
	 */
	private static byte[] strictUtf8(String text) throws CharacterCodingException {
		ByteBuffer encoded = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(text));
		byte[] bytes = new byte[encoded.remaining()];
		encoded.get(bytes);
		return bytes;
	}

	private static long firstEightBytes(byte[] input) throws NoSuchAlgorithmException {
		return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(input), 0, Long.BYTES).getLong();
	}

	/** Compute the keys of many values in one statement, one round trip. */
	private static List<Long> sqlKeys(String namespace, List<String> texts) throws SQLException {
		String sql = "SELECT " + AdvisoryLockKeys.SQL_EXPRESSION.replace("$1", "?::text").replace("$2", "t.value")
				+ " FROM unnest(?::text[]) WITH ORDINALITY AS t(value, position) ORDER BY t.position";
		try (Connection connection = TestDatabase.get().dataSource().getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			Array array = connection.createArrayOf("text", texts.toArray());
			statement.setString(1, namespace);
			statement.setArray(2, array);
			List<Long> keys = new ArrayList<>();
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					keys.add(result.getLong(1));
				}
			}
			return keys;
		}
	}

	/**
	 * A record, refused as a key value: its {@code toString()} is Java's, not a text
	 * other languages derive.
	 */
	record Order(String customer, int line, UUID id) {

	}

}
