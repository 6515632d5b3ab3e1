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

package io.github.advisorylock.documentation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the documents a user and a contributor read hold together: README.md,
 * CONTRIBUTING.md, CHANGELOG.md and every page of docs/ link only to files and headings
 * that exist, and the README's quick start depends on this build's version.
 */
class DocumentationLinksTests {

	private static final Path ROOT = Path.of(property("documentation.root")).toAbsolutePath().normalize();

	private static final Pattern MAVEN_DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

	private static final Pattern GRADLE_COORDINATES = Pattern.compile("\"([^\":\\s]+):([^\":\\s]+):([^\":\\s]+)\"");

	@Test
	void everyRelativeLinkResolvesToAFileAndAHeadingOfIt() throws IOException {
		List<Path> documents = documents();
		assertThat(documents).as("documents to check").hasSizeGreaterThan(3);
		List<String> problems = new LinkCheck(ROOT).problems(documents);
		assertThat(problems)
			.withFailMessage(() -> "Broken links (file:line: (target): why):\n" + String.join("\n", problems))
			.isEmpty();
	}

	/**
	 * The README is the landing page: what is past its quick start and overview belongs
	 * in {@code docs/}.
	 */
	@Test
	void readmeIsAtMostTwelveKilobytes() throws IOException {
		assertThat(Files.size(ROOT.resolve("README.md"))).as("README.md's size in bytes")
			.isLessThanOrEqualTo(12 * 1024);
	}

	@Test
	void quickStartDependsOnThisVersionOfOneArtifactInMavenAndGradle() {
		Markdown readme = Markdown.read(ROOT.resolve("README.md"));
		String maven = String.join("\n", readme.fencedBlockAfter("<!-- quick-start:maven -->"));
		String gradle = String.join("\n", readme.fencedBlockAfter("<!-- quick-start:gradle -->"));
		String version = property("documentation.project-version");

		List<String> versioned = new ArrayList<>();
		Matcher dependency = MAVEN_DEPENDENCY.matcher(maven);
		while (dependency.find()) {
			String versionOf = element(dependency.group(1), "version");
			if (versionOf != null) {
				versioned.add(element(dependency.group(1), "groupId") + ":" + element(dependency.group(1), "artifactId")
						+ ":" + versionOf);
			}
		}
		List<String> gradleVersioned = new ArrayList<>();
		Matcher coordinates = GRADLE_COORDINATES.matcher(gradle);
		while (coordinates.find()) {
			gradleVersioned.add(coordinates.group(0).replace("\"", ""));
		}
		// The driver's version comes from Spring Boot's BOM; the starter is the one
		// dependency with a version.
		assertThat(versioned).as("Maven dependencies with a version in the quick start")
			.containsExactly("io.github.advisorylock:advisory-lock-starter:" + version);
		assertThat(gradleVersioned).as("Gradle dependencies with a version in the quick start")
			.containsExactlyElementsOf(versioned);
	}

	private static List<Path> documents() throws IOException {
		List<Path> documents = new ArrayList<>();
		for (String name : List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md")) {
			Path document = ROOT.resolve(name);
			assertThat(document).as(name).isRegularFile();
			documents.add(document);
		}
		try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
			pages.filter((page) -> page.getFileName().toString().endsWith(".md")).sorted().forEach(documents::add);
		}
		return documents;
	}

	private static String element(String xml, String name) {
		Matcher matcher = Pattern.compile("<" + name + ">\\s*([^<]*?)\\s*</" + name + ">").matcher(xml);
		return matcher.find() ? matcher.group(1) : null;
	}

	private static String property(String name) {
		String value = System.getProperty(name);
		assertThat(value).as("system property %s, which the documentation module's pom sets", name).isNotBlank();
		return value;
	}

}
