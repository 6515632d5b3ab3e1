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
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of the link check itself, on documents written for each case, so that a check
 * that stopped finding broken links fails here rather than passing silently on the real
 * documents.
 */
class LinkCheckTests {

	@TempDir
	Path root;

	@Test
	void headingsGetTheAnchorsGitHubGivesThem() {
		assertThat(Markdown.slug("What fails, and why")).isEqualTo("what-fails-and-why");
		assertThat(Markdown.slug("Compared with ShedLock and `JdbcLockRegistry`"))
			.isEqualTo("compared-with-shedlock-and-jdbclockregistry");
		assertThat(Markdown.slug("1–3. One lock per transaction, no contention"))
			.isEqualTo("13-one-lock-per-transaction-no-contention");
		assertThat(Markdown.slug("Keys: the same in every language")).isEqualTo("keys-the-same-in-every-language");
		assertThat(Markdown.slug("The [sample](sample.md) and max_keys")).isEqualTo("the-sample-and-max_keys");
		assertThat(Markdown.slug("Several DataSources")).isEqualTo("several-datasources");
		assertThat(Markdown.slug("Spring Boot 4 (`-Pboot4`)")).isEqualTo("spring-boot-4--pboot4");
	}

	@Test
	void aRepeatedHeadingIsNumberedAndHeadingsInCodeAreNone() throws IOException {
		Path page = write("page.md", """
				# Page
				## Run it
				```shell
				# not a heading
				```
				## Run it
				""");
		assertThat(Markdown.read(page).anchors()).containsExactly("page", "run-it", "run-it-1");
	}

	@Test
	void brokenFilesAndAnchorsAreReportedWithTheirFileAndLine() throws IOException {
		write("docs/target.md", """
				# Target
				## A section
				""");
		write("docs/image.svg", "<svg/>");
		Path readme = write("README.md", """
				# Readme
				[fine](docs/target.md) and [fine too](docs/target.md#a-section) and ![chart](docs/image.svg)
				[missing file](docs/missing.md)
				[missing anchor](docs/target.md#no-such-section)
				[here](#readme) and [not here](#nowhere) and [outside](../elsewhere.md)
				`[in code](docs/missing.md)` and [external](https://example.com/missing.md)
				```markdown
				[in a block](docs/missing.md)
				```
				[reference]: docs/gone.md
				""");
		assertThat(new LinkCheck(this.root).problems(List.of(readme))).containsExactly(
				"README.md:3: (docs/missing.md): no file docs/missing.md",
				"README.md:4: (docs/target.md#no-such-section): no heading #no-such-section in docs/target.md",
				"README.md:5: (#nowhere): no heading #nowhere in README.md",
				"README.md:5: (../elsewhere.md): leaves the repository",
				"README.md:10: (docs/gone.md): no file docs/gone.md");
	}

	@Test
	void aLinkWhoseTextWrapsAcrossLinesIsReportedRatherThanMissed() throws IOException {
		Path readme = write("README.md", """
				# Readme
				See [the section on
				something](docs/missing.md), and [one line](#readme).
				""");
		assertThat(new LinkCheck(this.root).problems(List.of(readme))).containsExactly("README.md:3: a link's text "
				+ "begins on an earlier line: keep [text](target) on one line, so it is checked");
	}

	@Test
	void aMarkedBlockIsTheFencedBlockRightAfterItsMarker() throws IOException {
		Path readme = write("README.md", """
				<!-- quick-start:maven -->
				```xml
				<version>1</version>
				```
				<!-- quick-start:gradle -->
				Text between the marker and the block.
				""");
		assertThat(Markdown.read(readme).fencedBlockAfter("<!-- quick-start:maven -->"))
			.containsExactly("<version>1</version>");
		assertThatIllegalStateException()
			.isThrownBy(() -> Markdown.read(readme).fencedBlockAfter("<!-- quick-start:gradle -->"))
			.withMessageContaining("is not directly followed by a fenced block");
	}

	private Path write(String name, String content) throws IOException {
		Path file = this.root.resolve(name);
		Files.createDirectories(file.getParent());
		return Files.writeString(file, content);
	}

}
