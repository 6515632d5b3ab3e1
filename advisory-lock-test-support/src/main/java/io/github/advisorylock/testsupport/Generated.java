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

package io.github.advisorylock.testsupport;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Generated values for property tests in plain JUnit: a seeded {@link SplittableRandom},
 * so that every run generates the same cases unless the seed is changed with
 * {@code -Dadvisory-lock.test.seed=<long>} (or {@code =random}). Numbers come out at
 * their edges (0, ±1, the minimum and the maximum) often, since that is where code
 * breaks. A test class adds {@link ReportSeed} to have the seed printed with any failure.
 */
public final class Generated {

	/**
	 * The system property that sets the seed: a {@code long}, or {@code random} for a new
	 * one on each run.
	 */
	public static final String SEED_PROPERTY = "advisory-lock.test.seed";

	private static final long DEFAULT_SEED = 20260101L;

	private static final long SEED = seedOf(System.getProperty(SEED_PROPERTY));

	private final SplittableRandom random;

	private Generated(long seed) {
		this.random = new SplittableRandom(seed);
	}

	/**
	 * Generate {@code count} cases, each named by its value for the test's display name.
	 * Every call starts again from the seed, so a test method gets the same cases
	 * whichever other tests run.
	 * @param <T> the type of a case
	 * @param count the number of cases
	 * @param generator makes one case from the generated values
	 * @return the cases, for a {@code @MethodSource}
	 */
	public static <T> Stream<Named<T>> cases(int count, Function<Generated, T> generator) {
		return generate(count, generator).map(Generated::named);
	}

	/**
	 * Generate {@code count} values, starting again from the seed: for a
	 * {@code @MethodSource} of several arguments, each wrapped with
	 * {@link #named(Object)}.
	 * @param <T> the type of a value
	 * @param count the number of values
	 * @param generator makes one value from the generated values
	 * @return the values
	 */
	public static <T> Stream<T> generate(int count, Function<Generated, T> generator) {
		Generated generated = new Generated(SEED);
		return Stream.generate(() -> generator.apply(generated)).limit(count);
	}

	/**
	 * A value named by its {@link #show(Object) display form}, for the test's display
	 * name.
	 * @param <T> the type of the value
	 * @param value the value
	 * @return the named value
	 */
	public static <T> Named<T> named(T value) {
		return Named.of(show(value), value);
	}

	/**
	 * Whether an event of the given probability happens.
	 * @param probability between 0 and 1
	 * @return whether it happens
	 */
	public boolean chance(double probability) {
		return this.random.nextDouble() < probability;
	}

	/**
	 * An int between two bounds, the bounds themselves often.
	 * @param min the least value
	 * @param max the greatest value
	 * @return the int
	 */
	public int between(int min, int max) {
		return (int) between((long) min, max);
	}

	/**
	 * A long between two bounds, the bounds, zero and ±1 (where within them) often.
	 * @param min the least value
	 * @param max the greatest value
	 * @return the long
	 */
	public long between(long min, long max) {
		if (chance(0.2)) {
			long edge = oneOf(min, max, 0L, 1L, -1L, min + 1, max - 1);
			if (edge >= min && edge <= max) {
				return edge;
			}
		}
		if (max < Long.MAX_VALUE) {
			return this.random.nextLong(min, max + 1);
		}
		return (min > Long.MIN_VALUE) ? this.random.nextLong(min - 1, max) + 1 : this.random.nextLong();
	}

	/**
	 * Any int, its edges often.
	 * @return the int
	 */
	public int anyInt() {
		return between(Integer.MIN_VALUE, Integer.MAX_VALUE);
	}

	/**
	 * Any long, its edges often.
	 * @return the long
	 */
	public long anyLong() {
		return between(Long.MIN_VALUE, Long.MAX_VALUE);
	}

	/**
	 * A BigInteger of up to the given number of bits, of either sign, often one beyond
	 * the range of a long.
	 * @param bits the most bits of its magnitude
	 * @return the BigInteger
	 */
	public BigInteger bigInteger(int bits) {
		if (chance(0.1)) {
			return oneOf(BigInteger.ZERO, BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE),
					BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE), BigInteger.TWO.pow(bits).negate());
		}
		BigInteger magnitude = new BigInteger(between(0, bits), new Random(this.random.nextLong()));
		return chance(0.5) ? magnitude.negate() : magnitude;
	}

	/**
	 * A UUID of any 128 bits.
	 * @return the UUID
	 */
	public UUID uuid() {
		return new UUID(anyLong(), anyLong());
	}

	/**
	 * One of the given values.
	 * @param <T> the type of the values
	 * @param values the values
	 * @return one of them
	 */
	@SafeVarargs
	public final <T> T oneOf(T... values) {
		return values[this.random.nextInt(values.length)];
	}

	/**
	 * One of the constants of an enum.
	 * @param <E> the enum
	 * @param type the enum's class
	 * @return one of its constants
	 */
	public <E extends Enum<E>> E oneOf(Class<E> type) {
		return oneOf(type.getEnumConstants());
	}

	/**
	 * The value of one of the given generators.
	 * @param <T> the type of the values
	 * @param generators the generators
	 * @return a value of one of them
	 */
	@SafeVarargs
	public final <T> T anyOf(Supplier<? extends T>... generators) {
		return generators[this.random.nextInt(generators.length)].get();
	}

	/**
	 * A list of generated values, with duplicates whenever the generator repeats itself.
	 * @param <T> the type of the elements
	 * @param minSize the least size
	 * @param maxSize the greatest size
	 * @param element generates an element
	 * @return the list
	 */
	public <T> List<T> list(int minSize, int maxSize, Supplier<? extends T> element) {
		int size = between(minSize, maxSize);
		List<T> list = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			list.add(element.get());
		}
		return list;
	}

	/**
	 * Text of up to {@code maxCodePoints} code points drawn from all of Unicode,
	 * supplementary planes included, but without NUL, which PostgreSQL text cannot hold,
	 * and without surrogates: every such text has a UTF-8 form.
	 * @param maxCodePoints the most code points
	 * @return the text
	 */
	public String text(int maxCodePoints) {
		StringBuilder text = new StringBuilder();
		for (int i = between(0, maxCodePoints); i > 0; i--) {
			text.appendCodePoint(chance(0.5) ? between(1, Character.MIN_SURROGATE - 1)
					: between(Character.MAX_SURROGATE + 1, Character.MAX_CODE_POINT));
		}
		return text.toString();
	}

	/**
	 * Any sequence of up to {@code maxChars} UTF-16 chars, NUL included, with surrogates
	 * frequent: valid pairs, and halves on their own, which have no UTF-8 form.
	 * @param maxChars the most chars
	 * @return the text
	 */
	public String utf16(int maxChars) {
		StringBuilder text = new StringBuilder();
		for (int i = between(0, maxChars); i > 0; i--) {
			if (chance(0.25)) {
				text.append((char) between(Character.MIN_SURROGATE, Character.MAX_SURROGATE));
			}
			else if (chance(0.1)) {
				text.appendCodePoint(between(Character.MIN_SUPPLEMENTARY_CODE_POINT, Character.MAX_CODE_POINT));
			}
			else {
				text.append((char) between(Character.MIN_VALUE, Character.MAX_VALUE));
			}
		}
		return text.toString();
	}

	/**
	 * Text of {@code minLength} to {@code maxLength} chars taken from an alphabet.
	 * @param alphabet the chars to take from
	 * @param minLength the least length
	 * @param maxLength the greatest length
	 * @return the text
	 */
	public String text(String alphabet, int minLength, int maxLength) {
		StringBuilder text = new StringBuilder();
		for (int i = between(minLength, maxLength); i > 0; i--) {
			text.append(alphabet.charAt(this.random.nextInt(alphabet.length())));
		}
		return text.toString();
	}

	/**
	 * A value as a display name: texts quoted, with control chars, lone surrogates and
	 * the non-characters that XML reports cannot hold escaped as {@code \}{@code uXXXX}.
	 * @param value the value
	 * @return its display form
	 */
	public static String show(Object value) {
		String shown = (value instanceof String text) ? "\"" + text + "\"" : String.valueOf(value);
		StringBuilder escaped = new StringBuilder();
		shown.codePoints().forEach((codePoint) -> {
			if (codePoint < 0x20 || (codePoint >= 0x7F && codePoint < 0xA0)
					|| (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE)
					|| codePoint == 0xFFFE || codePoint == 0xFFFF) {
				escaped.append(String.format("\\u%04X", codePoint));
			}
			else {
				escaped.appendCodePoint(codePoint);
			}
		});
		return escaped.toString();
	}

	private static long seedOf(String property) {
		if (property == null || property.isBlank()) {
			return DEFAULT_SEED;
		}
		if (property.equals("random")) {
			return new SplittableRandom().nextLong();
		}
		try {
			return Long.parseLong(property.strip());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(
					"-D" + SEED_PROPERTY + " must be a long or 'random', got '" + property + "'", ex);
		}
	}

	/**
	 * JUnit extension that names the seed in the message of any failure, so that the
	 * failing case can be generated again.
	 */
	public static final class ReportSeed implements TestExecutionExceptionHandler {

		@Override
		public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
			if (failure instanceof TestAbortedException) {
				throw failure;
			}
			throw new AssertionError(context.getDisplayName() + " failed with values generated from seed " + SEED
					+ " (-D" + SEED_PROPERTY + "=" + SEED + " generates them again): " + failure, failure);
		}

	}

}
