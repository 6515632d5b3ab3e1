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
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packages read top-down: the API depends on no package of its own, the statements'
 * text ({@code core.sql}) on the API only, the driver-neutral basics of a lock request
 * ({@code core}: keys, attempts, settings, messages) on that text, the held locks and
 * lock sessions ({@code core.session}) on those two, the records of the transactions'
 * keys ({@code core.transaction}) on the basics and the sessions, the plans
 * ({@code core.plan}) on the basics, the text and the sessions, what is derived from the
 * application's Hikari pools ({@code hikari}) on nothing, taking locks through JDBC
 * ({@code jdbc}) on the core, its text, {@code hikari} and the {@code pg_locks} reader,
 * whose diagnosis its template sets on request, taking them through R2DBC ({@code r2dbc})
 * on the core and its text, reading {@code pg_locks} ({@code pglocks}) on the text and
 * {@code hikari}, the endpoint and the observations on the API and the {@code pg_locks}
 * reader, the bridge to ShedLock ({@code shedlock}) and to Spring Integration
 * ({@code integration}) on the API, and only {@code autoconfigure} wires them together. A
 * sub-package is a package of its own here: its parent may use it only where the rules
 * say so, and it may not use its parent. Read from the compiled classes, so that a fully
 * qualified name in code counts as much as an import.
 *
 * @author advisory-lock authors
 */
class PackageLayeringTests {

	/**
	 * Each package of the library, and the packages of the library it may use besides
	 * itself and the root.
	 */
	private static final Map<String, Set<String>> ALLOWED = Map.ofEntries(Map.entry("", Set.of()),
			Map.entry("core.sql", Set.of()), Map.entry("core", Set.of("core.sql")),
			Map.entry("core.session", Set.of("core", "core.sql")),
			Map.entry("core.transaction", Set.of("core", "core.session")),
			Map.entry("core.plan", Set.of("core", "core.sql", "core.session")), Map.entry("hikari", Set.of()),
			Map.entry("jdbc",
					Set.of("core", "core.sql", "core.session", "core.transaction", "core.plan", "hikari", "pglocks")),
			Map.entry("r2dbc", Set.of("core", "core.sql", "core.session", "core.transaction", "core.plan")),
			Map.entry("pglocks", Set.of("core.sql", "hikari")), Map.entry("interceptor", Set.of()),
			Map.entry("observation", Set.of()), Map.entry("actuate", Set.of("pglocks")),
			Map.entry("shedlock", Set.of()), Map.entry("integration", Set.of()), Map.entry("autoconfigure", Set
				.of("jdbc", "r2dbc", "pglocks", "interceptor", "observation", "actuate", "shedlock", "integration")));

	/**
	 * A class of the library named in a constant, in a class reference or a descriptor:
	 * its package below {@code io/github/advisorylock/}, sub-packages included
	 * ({@code core/sql/}), or none for the root.
	 */
	private static final Pattern LIBRARY_CLASS = Pattern.compile("io/github/advisorylock/((?:[a-z][a-z0-9]*/)*)[A-Z]");

	@Test
	void eachPackageUsesOnlyThePackagesBelowIt() throws IOException, URISyntaxException {
		Map<String, Set<String>> used = usedPackages();
		assertThat(used.keySet()).as("packages of the library").containsExactlyInAnyOrderElementsOf(ALLOWED.keySet());
		used.forEach((pkg, uses) -> {
			Set<String> others = new TreeSet<>(uses);
			others.remove(pkg);
			others.remove("");
			assertThat(others).as("packages used by '%s'", pkg).isSubsetOf(ALLOWED.get(pkg));
		});
	}

	@Test
	void theApiDependsOnNoPackageOfItsOwn() throws IOException, URISyntaxException {
		assertThat(usedPackages().get("")).containsOnly("");
	}

	@Test
	void theCoreNamesNoDriverType() throws IOException, URISyntaxException {
		Path core = classes().resolve("io/github/advisorylock/core");
		try (Stream<Path> files = Files.walk(core)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".class")).toList()) {
				String constants = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
				assertThat(constants).as("driver types named by %s", core.relativize(file))
					.doesNotContain("java/sql/", "javax/sql/", "org/springframework/jdbc/", "io/r2dbc/",
							"org/springframework/r2dbc/");
			}
		}
	}

	/**
	 * The core's reactive flow is loaded only for reactive calls, as Spring's
	 * {@code ReactiveTransactionSupport} is: only its classes, named {@code Reactive*},
	 * may name Reactor, so that an application without Reactor never loads one.
	 */
	@Test
	void onlyTheCoresReactiveClassesNameReactor() throws IOException, URISyntaxException {
		Path core = classes().resolve("io/github/advisorylock/core");
		List<String> naming = new ArrayList<>();
		try (Stream<Path> files = Files.walk(core)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".class")).toList()) {
				String constants = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
				if (constants.contains("reactor/")) {
					naming.add(file.getFileName().toString());
				}
			}
		}
		assertThat(naming).isNotEmpty().allMatch((name) -> name.startsWith("Reactive"));
	}

	private static Path classes() throws URISyntaxException {
		return Path.of(AdvisoryLocked.class.getProtectionDomain().getCodeSource().getLocation().toURI());
	}

	private Map<String, Set<String>> usedPackages() throws IOException, URISyntaxException {
		Path root = classes().resolve("io/github/advisorylock");
		Map<String, Set<String>> used = new TreeMap<>();
		try (Stream<Path> files = Files.walk(root)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".class")).toList()) {
				String pkg = packageName(root.relativize(file.getParent()).toString().replace('\\', '/') + "/");
				Set<String> uses = used.computeIfAbsent(pkg, (key) -> new TreeSet<>());
				uses.addAll(referencedPackages(Files.readAllBytes(file)));
			}
		}
		return used;
	}

	/**
	 * Return the library's packages a class file names. Class names, descriptors and
	 * signatures are UTF-8 constants, stored as they are, so the ASCII names can be found
	 * in the raw bytes.
	 */
	private static Set<String> referencedPackages(byte[] classFile) {
		Set<String> packages = new TreeSet<>();
		Matcher matcher = LIBRARY_CLASS.matcher(new String(classFile, StandardCharsets.ISO_8859_1));
		while (matcher.find()) {
			packages.add(packageName(matcher.group(1)));
		}
		return packages;
	}

	/**
	 * Return a package's name below the root's as the rules write it, from its path with
	 * a trailing slash: {@code core.sql} for {@code core/sql/}, {@code ""} for the root.
	 */
	private static String packageName(String path) {
		String trimmed = path.startsWith("/") ? path.substring(1) : path;
		return trimmed.isEmpty() ? "" : trimmed.substring(0, trimmed.length() - 1).replace('/', '.');
	}

}
