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
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that docs/configuration.md gives every property of the starter's configuration
 * metadata with the default the metadata gives, so that a renamed or added property
 * cannot leave the page stale.
 */
class ConfigurationPageTests {

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	@Test
	void givesEveryPropertyOfTheMetadataWithItsDefault() throws IOException {
		String page = Files.readString(Path.of(System.getProperty("documentation.root"), "docs", "configuration.md"));
		List<String> properties = properties(metadata());
		assertThat(properties).as("properties in " + METADATA).isNotEmpty();
		List<String> missing = new ArrayList<>();
		for (String property : properties) {
			String name = value(property, "name");
			String expected;
			if (property.matches("(?s).*\"deprecated\"\\s*:\\s*true.*")) {
				// A deprecated name is mentioned, beside the name that replaces it.
				expected = "`" + name + "`";
			}
			else if (name.startsWith("advisory-lock.")) {
				expected = "| `" + name + "` | `" + value(property, "defaultValue") + "` |";
			}
			else {
				expected = "`" + name + "`";
			}
			if (!page.contains(expected)) {
				missing.add(expected);
			}
		}
		assertThat(missing).as("what docs/configuration.md should hold").isEmpty();
	}

	private static String metadata() throws IOException {
		try (InputStream in = ConfigurationPageTests.class.getClassLoader().getResourceAsStream(METADATA)) {
			assertThat(in).as(METADATA + " of advisory-lock-autoconfigure").isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	/**
	 * Return the text of each object of the metadata's {@code properties} array, found by
	 * counting braces outside strings: the metadata is JSON, and this module needs no
	 * JSON library for one array.
	 */
	private static List<String> properties(String metadata) {
		int start = metadata.indexOf('[', metadata.indexOf("\"properties\""));
		List<String> objects = new ArrayList<>();
		int depth = 0;
		int objectStart = -1;
		boolean inString = false;
		for (int i = start + 1; i < metadata.length(); i++) {
			char c = metadata.charAt(i);
			if (inString) {
				if (c == '\\') {
					i++;
				}
				else if (c == '"') {
					inString = false;
				}
			}
			else if (c == '"') {
				inString = true;
			}
			else if (c == '{') {
				if (depth++ == 0) {
					objectStart = i;
				}
			}
			else if (c == '}') {
				if (--depth == 0) {
					objects.add(metadata.substring(objectStart, i + 1));
				}
			}
			else if (c == ']' && depth == 0) {
				break;
			}
		}
		return objects;
	}

	/**
	 * Return a top-level value of a property's object: a string without its quotes, or a
	 * literal as written.
	 */
	private static String value(String property, String key) {
		Matcher matcher = Pattern.compile("\"" + key + "\"\\s*:\\s*(?:\"((?:[^\"\\\\]|\\\\.)*)\"|([^,\\s}]+))")
			.matcher(property);
		assertThat(matcher.find()).as("%s in %s", key, property).isTrue();
		return (matcher.group(1) != null) ? matcher.group(1) : matcher.group(2);
	}

}
