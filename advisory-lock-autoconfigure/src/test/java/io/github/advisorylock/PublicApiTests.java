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

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.github.advisorylock.autoconfigure.AdvisoryLockProperties;
import io.github.advisorylock.integration.AdvisoryLockRegistry;
import io.github.advisorylock.integration.FencedLock;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.shedlock.AdvisoryLockProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API is a promise: every public signature of the root package and of the
 * auto-configuration's properties is on record in
 * {@code src/test/resources/public-api.txt}, and a change to any of them fails this test
 * until the record is changed with it, deliberately (run the test with
 * {@code -Dpublic-api.record=true} to write the new record, then read its diff).
 */
class PublicApiTests {

	private static final Path RECORD = Path.of("src/test/resources/public-api.txt");

	/**
	 * The public classes outside the root package: the auto-configuration's properties,
	 * the two templates, and the bridges to ShedLock and Spring Integration.
	 */
	private static final List<Class<?>> OUTSIDE_THE_ROOT = List.of(AdvisoryLockProperties.class,
			AdvisoryLockTemplate.class, R2dbcAdvisoryLockTemplate.class, AdvisoryLockProvider.class,
			AdvisoryLockRegistry.class, FencedLock.class);

	@Test
	void thePublicSignaturesAreTheOnesOnRecord() throws Exception {
		List<String> signatures = signatures();
		if (Boolean.getBoolean("public-api.record")) {
			Files.write(RECORD, signatures);
		}
		assertThat(signatures).as("public signatures (on record in %s: change it with the API, deliberately)", RECORD)
			.containsExactlyElementsOf(Files.readAllLines(RECORD));
	}

	private static List<String> signatures() throws IOException, URISyntaxException, ClassNotFoundException {
		TreeSet<String> signatures = new TreeSet<>();
		for (Class<?> type : types()) {
			describe(type, signatures);
		}
		return new ArrayList<>(signatures);
	}

	private static List<Class<?>> types() throws IOException, URISyntaxException, ClassNotFoundException {
		Path classes = Path.of(AdvisoryLocked.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		List<Class<?>> types = new ArrayList<>(OUTSIDE_THE_ROOT);
		try (Stream<Path> files = Files.list(classes.resolve("io/github/advisorylock"))) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".class")).sorted().toList()) {
				String name = file.getFileName().toString();
				if (!name.contains("$") && !name.equals("package-info.class")) {
					types.add(Class.forName("io.github.advisorylock." + name.substring(0, name.length() - 6)));
				}
			}
		}
		return types;
	}

	private static void describe(Class<?> type, TreeSet<String> signatures) {
		if (!Modifier.isPublic(type.getModifiers())) {
			return;
		}
		String name = type.getName();
		signatures.add(name + " " + Modifier.toString(type.getModifiers() & ~Modifier.INTERFACE) + " " + kind(type)
				+ ((type.getGenericSuperclass() != null && type.getSuperclass() != Object.class && !type.isEnum()
						&& !type.isRecord()) ? " extends " + type.getGenericSuperclass().getTypeName() : "")
				+ ((type.getGenericInterfaces().length > 0) ? " implements "
						+ String.join(", ", Arrays.stream(type.getGenericInterfaces()).map(Type::getTypeName).toList())
						: ""));
		for (Constructor<?> constructor : type.getDeclaredConstructors()) {
			if (visible(constructor.getModifiers()) && !constructor.isSynthetic()) {
				signatures.add(name + " " + constructor.toGenericString());
			}
		}
		for (Method method : type.getDeclaredMethods()) {
			if (visible(method.getModifiers()) && !method.isSynthetic() && !method.isBridge()) {
				signatures.add(name + " " + method.toGenericString());
			}
		}
		for (Field field : type.getDeclaredFields()) {
			if (visible(field.getModifiers()) && !field.isSynthetic()) {
				signatures.add(name + " " + field.toGenericString());
			}
		}
		for (Class<?> nested : type.getDeclaredClasses()) {
			describe(nested, signatures);
		}
	}

	private static boolean visible(int modifiers) {
		return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
	}

	private static String kind(Class<?> type) {
		if (type.isAnnotation()) {
			return "@interface";
		}
		if (type.isInterface()) {
			return "interface";
		}
		if (type.isEnum()) {
			return "enum";
		}
		return type.isRecord() ? "record" : "class";
	}

}
