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

package io.github.advisorylock.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A Markdown table, padded so that it also reads well on a terminal.
 */
final class Table {

	private final List<String[]> rows = new ArrayList<>();

	Table(String... headers) {
		this.rows.add(headers);
	}

	Table row(Object... cells) {
		this.rows.add(Arrays.stream(cells).map(String::valueOf).toArray(String[]::new));
		return this;
	}

	String markdown() {
		int columns = this.rows.get(0).length;
		int[] widths = new int[columns];
		for (String[] row : this.rows) {
			for (int i = 0; i < columns; i++) {
				widths[i] = Math.max(widths[i], row[i].length());
			}
		}
		StringBuilder text = new StringBuilder();
		for (int r = 0; r < this.rows.size(); r++) {
			line(text, this.rows.get(r), widths);
			if (r == 0) {
				String[] rule = new String[columns];
				for (int i = 0; i < columns; i++) {
					rule[i] = "-".repeat(Math.max(3, widths[i]));
				}
				line(text, rule, widths);
			}
		}
		return text.toString();
	}

	private static void line(StringBuilder text, String[] cells, int[] widths) {
		text.append('|');
		for (int i = 0; i < cells.length; i++) {
			text.append(' ').append(String.format(Locale.ROOT, "%-" + widths[i] + "s", cells[i])).append(" |");
		}
		text.append('\n');
	}

}
