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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks the relative links of Markdown documents: each must name a file or directory of
 * the repository, and an anchor in it must be one of the target document's headings.
 * External links are not fetched.
 */
final class LinkCheck {

	private final Path root;

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	/**
	 * Create a check of the documents of one repository.
	 * @param root the repository's top directory, which no link may leave
	 */
	LinkCheck(Path root) {
		this.root = root.toAbsolutePath().normalize();
	}

	/**
	 * Check the links of documents.
	 * @param documents the documents
	 * @return one line per broken link, {@code file:line: [target]: why}, in the order of
	 * the documents
	 */
	List<String> problems(List<Path> documents) {
		List<String> problems = new ArrayList<>();
		for (Path document : documents) {
			Markdown markdown = Markdown.read(document);
			for (int line : markdown.wrappedLinks()) {
				problems.add(relative(markdown.file()) + ":" + line
						+ ": a link's text begins on an earlier line: keep [text](target) on one line, so it is checked");
			}
			for (Markdown.Link link : markdown.links()) {
				if (link.external()) {
					continue;
				}
				String problem = problem(markdown.file(), link);
				if (problem != null) {
					problems
						.add(relative(markdown.file()) + ":" + link.line() + ": (" + link.target() + "): " + problem);
				}
			}
		}
		return problems;
	}

	private String problem(Path document, Markdown.Link link) {
		String path = link.path();
		Path target;
		if (path.isEmpty()) {
			target = document.toAbsolutePath().normalize();
		}
		else if (path.startsWith("/")) {
			// GitHub resolves a leading slash from the repository's top.
			target = this.root.resolve(path.substring(1)).normalize();
		}
		else {
			target = document.toAbsolutePath().getParent().resolve(path).normalize();
		}
		if (!target.startsWith(this.root)) {
			return "leaves the repository";
		}
		if (!Files.exists(target)) {
			return "no file " + relative(target);
		}
		String anchor = link.anchor();
		if (anchor == null || !target.getFileName().toString().endsWith(".md") || Files.isDirectory(target)) {
			return null;
		}
		Set<String> known = this.anchors.computeIfAbsent(target, (file) -> Markdown.read(file).anchors());
		return known.contains(anchor) ? null : "no heading #" + anchor + " in " + relative(target);
	}

	private String relative(Path file) {
		return this.root.relativize(file.toAbsolutePath().normalize()).toString().replace('\\', '/');
	}

}
