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
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that every code block of docs/testing.md is taken from a test that CI compiles:
 * its lines, without indentation, blank lines and comment lines, appear one after the
 * other in a test source or build file of a consumer application ({@code consumers/}) or
 * of the test kit's own tests ({@code advisory-lock-test/src/test}). A block edited on
 * the page alone, or a test changed under it, fails here.
 */
class TestingPageBlocksTests {

	private static final Path ROOT = Path.of(System.getProperty("documentation.root")).toAbsolutePath().normalize();

	@Test
	void everyCodeBlockIsTakenFromACompiledTest() throws IOException {
		List<List<String>> blocks = blocks(ROOT.resolve("docs/testing.md"));
		assertThat(blocks).as("code blocks of docs/testing.md").hasSizeGreaterThanOrEqualTo(5);
		List<List<String>> sources = new ArrayList<>();
		for (Path folder : List.of(ROOT.resolve("consumers"), ROOT.resolve("advisory-lock-test/src/test"))) {
			try (Stream<Path> files = Files.walk(folder)) {
				files.filter(TestingPageBlocksTests::isSource).map(TestingPageBlocksTests::lines).forEach(sources::add);
			}
		}
		assertThat(sources).as("test sources and build files").isNotEmpty();
		List<String> orphans = new ArrayList<>();
		for (List<String> block : blocks) {
			if (sources.stream().noneMatch((source) -> Collections.indexOfSubList(source, block) >= 0)) {
				orphans.add(String.join("\n", block));
			}
		}
		assertThat(orphans).as("blocks of docs/testing.md found in no compiled test").isEmpty();
	}

	private static boolean isSource(Path file) {
		String name = file.getFileName().toString();
		return Files.isRegularFile(file) && !file.toString().contains("/target/")
				&& (name.endsWith(".java") || name.endsWith(".kt") || name.equals("pom.xml"));
	}

	private static List<List<String>> blocks(Path page) throws IOException {
		List<List<String>> blocks = new ArrayList<>();
		List<String> block = null;
		for (String line : Files.readAllLines(page)) {
			if (line.strip().startsWith("```")) {
				if (block == null) {
					block = new ArrayList<>();
				}
				else {
					blocks.add(block);
					block = null;
				}
			}
			else if (block != null && isCode(line)) {
				block.add(line.strip());
			}
		}
		return blocks;
	}

	private static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file).stream().filter(TestingPageBlocksTests::isCode).map(String::strip).toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Whether a line is code: neither blank nor a comment of its own.
	 */
	private static boolean isCode(String line) {
		String stripped = line.strip();
		return !stripped.isEmpty() && !stripped.startsWith("//") && !stripped.startsWith("<!--");
	}

}
