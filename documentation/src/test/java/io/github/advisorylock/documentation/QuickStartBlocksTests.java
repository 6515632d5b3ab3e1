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
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that every block the README's quick start marks is checked against a consumer
 * application: each {@code <!-- quick-start:NAME -->} but the Gradle one, which
 * {@link DocumentationLinksTests} holds to the Maven one, is named in the
 * {@code quick-start.properties} of an application in {@code consumers/}, whose build
 * ({@code QuickStartSnippetsTests}) then finds it, line for line, in the file named
 * there.
 */
class QuickStartBlocksTests {

	private static final Pattern MARKER = Pattern.compile("^\\s*<!-- quick-start:([a-z-]+) -->\\s*$");

	@Test
	void everyMarkedBlockOfTheReadmeIsHeldByAConsumerApplication() throws IOException {
		Path root = Path.of(System.getProperty("documentation.root")).toAbsolutePath().normalize();
		Set<String> marked = new TreeSet<>();
		for (String line : Files.readAllLines(root.resolve("README.md"))) {
			Matcher marker = MARKER.matcher(line);
			if (marker.matches()) {
				marked.add(marker.group(1));
			}
		}
		assertThat(marked).as("quick-start blocks marked in README.md").contains("maven", "service");
		marked.remove("gradle");

		Set<String> held = new TreeSet<>();
		List<String> missingFiles = new ArrayList<>();
		List<Path> applications;
		try (Stream<Path> folders = Files.list(root.resolve("consumers"))) {
			applications = folders.filter((folder) -> Files.isRegularFile(folder.resolve("quick-start.properties")))
				.sorted()
				.toList();
		}
		for (Path application : applications) {
			Properties blocks = new Properties();
			try (Reader reader = Files.newBufferedReader(application.resolve("quick-start.properties"))) {
				blocks.load(reader);
			}
			for (String block : blocks.stringPropertyNames()) {
				held.add(block);
				if (!Files.isRegularFile(application.resolve(blocks.getProperty(block)))) {
					missingFiles.add(root.relativize(application) + ": " + block + " = " + blocks.getProperty(block));
				}
			}
		}
		assertThat(applications).as("consumer applications with a quick-start.properties").isNotEmpty();
		assertThat(missingFiles).as("quick-start.properties entries naming no file of their application").isEmpty();
		assertThat(held).as("the blocks the consumer applications hold (their quick-start.properties)")
			.containsAll(marked);
	}

}
