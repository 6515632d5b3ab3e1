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

import io.github.advisorylock.test.TestDatabase;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Properties of {@link AdvisoryLockKeys} over generated values (jqwik): any Unicode text, numbers, UUIDs, enums,
 * records, and values of every other kind.
 */
class AdvisoryLockKeysPropertyTests {

	/** A value of each supported kind. */
	@Provide
	Arbitrary<Object> keyValues() {
		return Arbitraries.oneOf(unicodeText(), Arbitraries.bytes(), Arbitraries.shorts(), Arbitraries.integers(),
				Arbitraries.longs(), bigIntegers(), uuids(), Arbitraries.of(LockMode.class), records());
	}

	/** Text of any Unicode code point except NUL, which PostgreSQL text cannot hold. */
	@Provide
	Arbitrary<String> unicodeText() {
		Arbitrary<Integer> codePoints = Arbitraries.oneOf(Arbitraries.integers().between(1, 0xD7FF),
				Arbitraries.integers().between(0xE000, Character.MAX_CODE_POINT));
		return codePoints.list().ofMaxSize(40).map((points) -> {
			StringBuilder text = new StringBuilder();
			points.forEach(text::appendCodePoint);
			return text.toString();
		});
	}

	/** Any sequence of UTF-16 chars, with surrogates frequent: valid pairs, and halves on their own. */
	@Provide
	Arbitrary<String> utf16Text() {
		Arbitrary<Character> chars = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.chars().all()),
				Tuple.of(1, Arbitraries.chars().range(Character.MIN_SURROGATE, Character.MAX_SURROGATE)));
		return chars.list().ofMaxSize(20).map((list) -> {
			StringBuilder text = new StringBuilder();
			list.forEach(text::append);
			return text.toString();
		});
	}

	@Provide
	Arbitrary<String> namespaces() {
		return unicodeText().filter((namespace) -> !namespace.isBlank());
	}

	private static Arbitrary<BigInteger> bigIntegers() {
		BigInteger bound = BigInteger.TWO.pow(200);
		return Arbitraries.bigIntegers().between(bound.negate(), bound);
	}

	private static Arbitrary<UUID> uuids() {
		return Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(UUID::new);
	}

	private Arbitrary<Order> records() {
		return Combinators.combine(unicodeText(), Arbitraries.integers(), uuids()).as(Order::new);
	}

	/** Anything a key expression might give: supported values, and null, floats, dates, collections, objects. */
	@Provide
	Arbitrary<Object> anything() {
		return Arbitraries.oneOf(keyValues(), utf16Text(), Arbitraries.doubles(),
				Arbitraries.floats(), Arbitraries.chars(), Arbitraries.of(true, false),
				Arbitraries.integers().between(0, 50_000).map((days) -> LocalDate.ofEpochDay(days)),
				Arbitraries.integers().list().ofMaxSize(3).map((list) -> (Object) list),
				Arbitraries.just(new Object()), Arbitraries.just(new int[] { 1 }))
			.injectNull(0.05);
	}

	@Property
	void derivationIsDeterministic(@ForAll("namespaces") String namespace, @ForAll("keyValues") Object value) {
		assertThat(AdvisoryLockKeys.of(namespace, value)).isEqualTo(AdvisoryLockKeys.of(namespace, value));
		// Equal values derive equal keys, whatever the instance.
		assertThat(AdvisoryLockKeys.of(new String(namespace), value))
			.isEqualTo(AdvisoryLockKeys.of(namespace, AdvisoryLockKeys.text(value)));
	}

	@Property
	void keyIsTheFirstEightBytesOfTheSha256OfTheUtf8Text(@ForAll("namespaces") String namespace,
			@ForAll("keyValues") Object value) throws Exception {
		byte[] utf8 = strictUtf8(namespace + ":" + AdvisoryLockKeys.text(value));
		assertThat(AdvisoryLockKeys.of(namespace, value)).isEqualTo(firstEightBytes(utf8));
	}

	@Property(tries = 200)
	void sqlExpressionGivesTheSameKeysInPostgreSQL(@ForAll("namespaces") String namespace,
			@ForAll @Size(min = 1, max = 25) List<@From("keyValues") Object> values) throws SQLException {
		List<String> texts = values.stream().map(AdvisoryLockKeys::text).toList();
		List<Long> java = values.stream().map((value) -> AdvisoryLockKeys.of(namespace, value)).toList();
		assertThat(sqlKeys(namespace, texts)).isEqualTo(java);
	}

	@Property
	void anyValueGivesAKeyOrAnInvalidLockKeyException(@ForAll("namespaces") String namespace,
			@ForAll("anything") Object value) {
		Throwable thrown = catchThrowable(() -> AdvisoryLockKeys.of(namespace, value));
		if (thrown != null) {
			assertThat(thrown).isExactlyInstanceOf(InvalidLockKeyException.class).hasMessageContaining("key");
		}
	}

	@Property
	void anyStringWithAUtf8FormGetsItsKeyAndAnyOtherIsRefused(@ForAll("namespaces") String namespace,
			@ForAll("utf16Text") String text) throws Exception {
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

	/** Encode as UTF-8, refusing what has no UTF-8 form (where {@code getBytes} would substitute '?'). */
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

	/** A record key value: its text is its {@code toString()}. */
	record Order(String customer, int line, UUID id) {

	}

}
