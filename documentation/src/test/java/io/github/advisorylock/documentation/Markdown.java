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
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Markdown file as GitHub renders it, read for what a link check needs: the links it
 * makes, the anchors its headings get, and the fenced blocks it marks.
 *
 * <p>
 * Only what these documents use is understood: ATX headings ({@code ## Title}), inline
 * links and images, reference definitions, {@code href}/{@code src} attributes and
 * {@code <a id>} anchors. Nothing inside a fenced code block or an inline code span is a
 * link or a heading.
 */
final class Markdown {

	private static final Pattern FENCE = Pattern.compile("^ *(`{3,}|~{3,})");

	private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

	/**
	 * An inline link or image: the text may hold one level of brackets, the target no
	 * space.
	 */
	private static final Pattern INLINE_LINK = Pattern
		.compile("\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

	private static final Pattern REFERENCE_DEFINITION = Pattern
		.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(\\s.*)?$");

	private static final Pattern HTML_LINK = Pattern.compile("\\b(?:href|src)\\s*=\\s*\"([^\"]+)\"");

	private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*\\b(?:id|name)\\s*=\\s*\"([^\"]+)\"");

	private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*$");

	private final Path file;

	private final List<String> lines;

	/** Whether each line is inside a fenced code block (the fences included). */
	private final boolean[] code;

	private Markdown(Path file, List<String> lines) {
		this.file = file;
		this.lines = lines;
		this.code = new boolean[lines.size()];
		String open = null;
		for (int i = 0; i < lines.size(); i++) {
			Matcher fence = FENCE.matcher(lines.get(i));
			if (open == null) {
				if (fence.find()) {
					open = fence.group(1);
					this.code[i] = true;
				}
			}
			else {
				this.code[i] = true;
				// A closing fence is of the opening's character and at least as long.
				if (fence.find() && fence.group(1).charAt(0) == open.charAt(0)
						&& fence.group(1).length() >= open.length()) {
					open = null;
				}
			}
		}
	}

	/**
	 * Read a Markdown file.
	 * @param file the file
	 * @return its document
	 */
	static Markdown read(Path file) {
		try {
			return new Markdown(file, Files.readAllLines(file, StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + file, ex);
		}
	}

	/**
	 * Return the file this document was read from.
	 * @return the file
	 */
	Path file() {
		return this.file;
	}

	/**
	 * Return every link target outside code, in the order of the text, with its line.
	 * @return the links
	 */
	List<Link> links() {
		List<Link> links = new ArrayList<>();
		prose().forEach((number, line) -> {
			for (Pattern pattern : List.of(INLINE_LINK, REFERENCE_DEFINITION, HTML_LINK)) {
				Matcher matcher = pattern.matcher(line);
				while (matcher.find()) {
					links.add(new Link(number, matcher.group(1)));
				}
			}
		});
		return links;
	}

	/**
	 * Return the lines, outside code, where a link's target follows text that began on an
	 * earlier line ({@code …](target)} with no {@code [} before it on the line):
	 * {@link #links()} reads one line at a time and would not see that link.
	 * @return the numbers of those lines, from 1
	 */
	List<Integer> wrappedLinks() {
		List<Integer> wrapped = new ArrayList<>();
		prose().forEach((number, line) -> {
			if (INLINE_LINK.matcher(line).replaceAll("").contains("](")) {
				wrapped.add(number);
			}
		});
		return wrapped;
	}

	/**
	 * Return the lines outside fenced blocks, by their number from 1, with inline code
	 * spans removed: the text where links are links.
	 * @return the lines, in order
	 */
	private Map<Integer, String> prose() {
		Map<Integer, String> prose = new LinkedHashMap<>();
		for (int i = 0; i < this.lines.size(); i++) {
			if (!this.code[i]) {
				prose.put(i + 1, CODE_SPAN.matcher(this.lines.get(i)).replaceAll(""));
			}
		}
		return prose;
	}

	/**
	 * Return the anchors a link into this document may name: those GitHub gives its
	 * headings, and explicit {@code <a id>} ones.
	 * @return the anchors
	 */
	Set<String> anchors() {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (int i = 0; i < this.lines.size(); i++) {
			if (this.code[i]) {
				continue;
			}
			String line = this.lines.get(i);
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				String slug = slug(heading.group(1));
				// GitHub numbers a repeated heading's anchor: intro, intro-1, intro-2.
				int count = seen.merge(slug, 1, Integer::sum);
				anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
			}
			Matcher anchor = HTML_ANCHOR.matcher(line);
			while (anchor.find()) {
				anchors.add(anchor.group(1));
			}
		}
		return Collections.unmodifiableSet(anchors);
	}

	/**
	 * Return the content of the fenced block that directly follows a line holding only
	 * the marker.
	 * @param marker the marker, such as {@code <!-- quick-start:maven -->}
	 * @return the block's lines between its fences
	 * @throws IllegalStateException if no such line is followed by a fenced block
	 */
	List<String> fencedBlockAfter(String marker) {
		for (int i = 0; i + 1 < this.lines.size(); i++) {
			if (!this.code[i] && this.lines.get(i).trim().equals(marker)) {
				if (!FENCE.matcher(this.lines.get(i + 1)).find()) {
					throw new IllegalStateException(
							this.file + ":" + (i + 1) + ": " + marker + " is not directly followed by a fenced block");
				}
				int end = i + 2;
				while (end < this.lines.size() && this.code[end] && !FENCE.matcher(this.lines.get(end)).find()) {
					end++;
				}
				return this.lines.subList(i + 2, end);
			}
		}
		throw new IllegalStateException(this.file + " has no line " + marker);
	}

	/**
	 * Return the anchor GitHub gives a heading: its text as rendered (links by their
	 * text, code without its backticks, no HTML tags), in lower case, without punctuation
	 * other than {@code -} and {@code _}, each space a {@code -}.
	 * @param heading the heading's Markdown, without its leading {@code #}s
	 * @return the anchor
	 */
	static String slug(String heading) {
		String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
			.replaceAll("<[^>]+>", "")
			.replace("`", "")
			.toLowerCase(Locale.ROOT);
		return text.replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc}\\- ]", "").replace(' ', '-');
	}

	/**
	 * A link target, as written, and the line it is on.
	 *
	 * @param line the line, from 1
	 * @param target the target, such as {@code docs/usage.md#several-datasources}
	 */
	record Link(int line, String target) {

		/**
		 * Return whether the target leaves the repository: a scheme such as
		 * {@code https:} or {@code mailto:}, or a network path.
		 * @return whether the link is external
		 */
		boolean external() {
			return this.target.matches("[a-zA-Z][a-zA-Z0-9+.-]*:.*") || this.target.startsWith("//");
		}

		/**
		 * Return the path part of the target, decoded; empty for a link into the same
		 * document.
		 * @return the path
		 */
		String path() {
			int hash = this.target.indexOf('#');
			String path = (hash < 0) ? this.target : this.target.substring(0, hash);
			int query = path.indexOf('?');
			path = (query < 0) ? path : path.substring(0, query);
			return URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
		}

		/**
		 * Return the anchor of the target, without its {@code #}, or {@code null} when it
		 * names none.
		 * @return the anchor
		 */
		String anchor() {
			int hash = this.target.indexOf('#');
			return (hash < 0 || hash == this.target.length() - 1) ? null : this.target.substring(hash + 1);
		}

	}

}
