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
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.StringJoiner;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The key derivation: a namespace and a value to the signed 64-bit key of
 * {@code pg_advisory_xact_lock(bigint)}, the same in every language so that other
 * services can take the same lock (docs/keys.md).
 *
 * <p>
 * {@code key = first 8 bytes of SHA-256(UTF-8(namespace + ":" + text(value))),
 * big-endian, signed}; in Python
 * {@code int.from_bytes(hashlib.sha256(f"{ns}:{value}".encode()).digest()[:8], "big",
 * signed=True)}, in PostgreSQL 11+ {@value #SQL_EXPRESSION}.
 *
 * <p>
 * {@code text(value)} is a {@link CharSequence} as is, a {@link UUID} in its canonical
 * lower-case form, a {@link Byte}, {@link Short}, {@link Integer}, {@link Long} or
 * {@link BigInteger} in decimal, and an {@link Enum} by its {@link Enum#name() name}.
 * Other types (floating point numbers, dates, records, other objects) are refused with
 * {@link InvalidLockKeyException}, because their text differs between languages: convert
 * them in the key expression. So is a text holding a lone UTF-16 surrogate, which has no
 * UTF-8 form.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see LockKeyStrategy
 */
public final class AdvisoryLockKeys {

	/**
	 * The SQL expression that computes {@link #of(String, Object)} in PostgreSQL 11 or
	 * later, with {@code $1} the namespace and {@code $2} the value as text.
	 */
	public static final String SQL_EXPRESSION = "('x' || left(encode(sha256(convert_to($1 || ':' || $2, 'UTF8')), "
			+ "'hex'), 16))::bit(64)::bigint";

	/**
	 * The SQL expression that computes {@link #permitSlot(long, int)} for a slot above 0
	 * in PostgreSQL 11 or later, with {@code $1} the key ({@code bigint}) and {@code $2}
	 * the slot ({@code integer}).
	 */
	public static final String SLOT_SQL_EXPRESSION = "('x' || encode(substring(sha256('\\xff'::bytea || "
			+ "int8send($1) || int4send($2)) FROM 1 FOR 8), 'hex'))::bit(64)::bigint";

	/**
	 * The longest text of one key value in this library's messages, log lines and
	 * endpoint labels: longer ones are cut and end with "...".
	 */
	public static final int MAX_PRINTED_LENGTH = 160;

	/** Per thread: looking a digest up costs more than hashing a short key. */
	private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(AdvisoryLockKeys::sha256);

	private AdvisoryLockKeys() {
	}

	/**
	 * Derive the 64-bit advisory lock key of a value in a namespace.
	 * @param namespace the namespace, not blank
	 * @param value the value; see the class documentation for the supported types
	 * @return the key
	 * @throws IllegalArgumentException if the namespace is blank or holds a lone
	 * surrogate
	 * @throws InvalidLockKeyException if the value is {@code null}, of an unsupported
	 * type, or a text holding a lone surrogate
	 */
	public static long of(String namespace, @Nullable Object value) {
		if (namespace == null || namespace.isBlank()) {
			throw new IllegalArgumentException("Advisory lock namespace must not be blank");
		}
		String text = text(value);
		// getBytes would turn a lone surrogate into '?', a key no other language derives.
		int loneInNamespace = loneSurrogateAt(namespace);
		if (loneInNamespace >= 0) {
			throw new IllegalArgumentException("Advisory lock namespace holds a lone UTF-16 surrogate at index "
					+ loneInNamespace + ": it has no UTF-8 form");
		}
		int loneSurrogate = loneSurrogateAt(text);
		if (loneSurrogate >= 0) {
			throw new InvalidLockKeyException("Advisory lock key value holds a lone UTF-16 surrogate at index "
					+ loneSurrogate + ": it has no UTF-8 form, so no other language could derive the same key");
		}
		byte[] digest = SHA_256.get().digest((namespace + ":" + text).getBytes(StandardCharsets.UTF_8));
		long key = 0;
		for (int i = 0; i < Long.BYTES; i++) {
			key = (key << 8) | (digest[i] & 0xFF);
		}
		return key;
	}

	/**
	 * Derive the key of one permit of a {@link LockRequest#permits() limit} of {@code n}
	 * permits, for a slot from 0 to {@code n - 1}. Slot 0 is the plain key itself (which
	 * a custom {@link LockKeyStrategy} derives), so that a plain lock on the same
	 * namespace and value takes one permit, and a limit changed in a rolling deploy is
	 * bounded by the larger one. Slot {@code i > 0} is the first 8 bytes, big-endian and
	 * signed, of {@code SHA-256(0xFF || key || i)}, with {@code key} as 8 bytes and
	 * {@code i} as 4, both big-endian; {@link #SLOT_SQL_EXPRESSION} in SQL. Why, and the
	 * other languages: docs/keys.md, "The permits of a limit".
	 * @param key the plain key, slot 0
	 * @param slot the slot, at least 0
	 * @return the slot's key
	 * @throws IllegalArgumentException if the slot is negative
	 */
	public static long permitSlot(long key, int slot) {
		if (slot < 0) {
			throw new IllegalArgumentException("Permit slot must be at least 0, was " + slot);
		}
		if (slot == 0) {
			return key;
		}
		byte[] input = ByteBuffer.allocate(1 + Long.BYTES + Integer.BYTES)
			.put((byte) 0xFF)
			.putLong(key)
			.putInt(slot)
			.array();
		return ByteBuffer.wrap(SHA_256.get().digest(input)).getLong();
	}

	private static int loneSurrogateAt(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Return the text that represents a key value in the derivation.
	 * @param value the value
	 * @return its text form
	 * @throws InvalidLockKeyException if the value is {@code null} or of an unsupported
	 * type
	 */
	public static String text(@Nullable Object value) {
		if (value instanceof CharSequence || value instanceof UUID || value instanceof Byte || value instanceof Short
				|| value instanceof Integer || value instanceof Long || value instanceof BigInteger) {
			return value.toString();
		}
		if (value instanceof Enum<?> constant) {
			return constant.name();
		}
		if (value == null) {
			throw new InvalidLockKeyException("Advisory lock key value must not be null");
		}
		if (value instanceof Record) {
			throw new InvalidLockKeyException("Advisory lock key value is a record " + value.getClass().getName()
					+ ", whose toString() carries Java's class and component names, a text no other language "
					+ "derives: name the component in the key expression, for example #cmd.userId()");
		}
		throw new InvalidLockKeyException("Unsupported advisory lock key type " + value.getClass().getName()
				+ ": use a String, UUID, Byte, Short, Integer, Long, BigInteger or enum, "
				+ "or convert the value in the key expression (for example #date.toString())");
	}

	/**
	 * Return a text as this library prints a key value in its messages and log lines:
	 * control characters and Unicode line separators escaped (as {@code \n}, or
	 * <code>&#92;u0007</code>), so that a value cannot forge a log line, and cut to
	 * {@link #MAX_PRINTED_LENGTH} characters, ending with "...". The derivation and the
	 * key values an exception carries keep the whole text.
	 * @param text the text of a key value (see {@link #text(Object)})
	 * @return the printable text, at most {@link #MAX_PRINTED_LENGTH} characters long
	 * @since 0.1.0
	 */
	public static String printable(String text) {
		StringBuilder printed = new StringBuilder(Math.min(text.length(), MAX_PRINTED_LENGTH) + 8);
		if (appendPrintable(text, printed, MAX_PRINTED_LENGTH) == text.length()) {
			return printed.toString();
		}
		printed.setLength(0);
		appendPrintable(text, printed, MAX_PRINTED_LENGTH - 3);
		return printed.append("...").toString();
	}

	/**
	 * Return how this library names a lock in its messages and log lines:
	 * {@code namespace:[value, ...]}, each part {@link #printable(String) printable}.
	 * @param namespace the namespace
	 * @param values the text of the key values
	 * @return the printable name
	 * @since 0.1.0
	 */
	public static String printable(String namespace, List<String> values) {
		StringJoiner printed = new StringJoiner(", ", printable(namespace) + ":[", "]");
		for (String value : values) {
			printed.add(printable(value));
		}
		return printed.toString();
	}

	/**
	 * Append the printable form of the text's characters within the limit, never
	 * splitting an escape or a surrogate pair.
	 * @return the index of the first character not appended
	 */
	private static int appendPrintable(String text, StringBuilder printed, int limit) {
		int i = 0;
		while (i < text.length()) {
			char c = text.charAt(i);
			String escaped = escaped(c);
			int next = (Character.isHighSurrogate(c) && i + 1 < text.length()
					&& Character.isLowSurrogate(text.charAt(i + 1))) ? i + 2 : i + 1;
			int width = (escaped != null) ? escaped.length() : next - i;
			if (printed.length() + width > limit) {
				return i;
			}
			if (escaped != null) {
				printed.append(escaped);
			}
			else {
				printed.append(text, i, next);
			}
			i = next;
		}
		return i;
	}

	private static @Nullable String escaped(char c) {
		return switch (c) {
			case '\n' -> "\\n";
			case '\r' -> "\\r";
			case '\t' -> "\\t";
			default -> (Character.isISOControl(c) || Character.getType(c) == Character.LINE_SEPARATOR
					|| Character.getType(c) == Character.PARAGRAPH_SEPARATOR) ? String.format("\\u%04x", (int) c)
							: null;
		};
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			// Every Java platform must provide SHA-256 (MessageDigest javadoc).
			throw new IllegalStateException(ex);
		}
	}

}
