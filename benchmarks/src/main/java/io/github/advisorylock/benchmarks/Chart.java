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
import java.util.List;
import java.util.Locale;

/**
 * A small SVG line chart of side-by-side panels, each with a log₂ x axis (callers, keys),
 * a linear or log₁₀ y axis, and error bars for each point's spread. Written by hand to
 * keep the module free of a charting dependency.
 */
final class Chart {

	private static final int PANEL_WIDTH = 360;

	private static final int PLOT_HEIGHT = 230;

	private static final int LEFT = 64;

	private static final int RIGHT = 18;

	private static final int TOP = 58;

	private static final int LEGEND_LINE = 16;

	private Chart() {
	}

	/**
	 * Render the panels side by side.
	 * @param title the chart's title
	 * @param panels the panels
	 * @return the SVG document
	 */
	static String svg(String title, List<Panel> panels) {
		int legendLines = panels.stream().mapToInt((panel) -> panel.series().size()).max().orElse(0);
		int width = PANEL_WIDTH * panels.size();
		int height = TOP + PLOT_HEIGHT + 48 + legendLines * LEGEND_LINE + 10;
		StringBuilder svg = new StringBuilder();
		svg.append(format(
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
						+ "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
				width, height, width, height));
		svg.append(format("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height));
		svg.append(format(
				"<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\">%s</text>\n",
				width / 2, escape(title)));
		for (int i = 0; i < panels.size(); i++) {
			panel(svg, panels.get(i), i * PANEL_WIDTH);
		}
		svg.append("</svg>\n");
		return svg.toString();
	}

	private static void panel(StringBuilder svg, Panel panel, int offset) {
		double left = offset + LEFT;
		double right = offset + PANEL_WIDTH - RIGHT;
		double top = TOP;
		double bottom = TOP + PLOT_HEIGHT;
		svg.append(format(
				"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\" text-anchor=\"middle\">%s</text>\n",
				(left + right) / 2, top - 16, escape(panel.title())));

		double minX = Double.MAX_VALUE;
		double maxX = 0;
		double minY = Double.MAX_VALUE;
		double maxY = 0;
		List<Double> xs = new ArrayList<>();
		for (Series series : panel.series()) {
			for (Point point : series.points()) {
				minX = Math.min(minX, point.x());
				maxX = Math.max(maxX, point.x());
				minY = Math.min(minY, point.low());
				maxY = Math.max(maxY, point.high());
				if (!xs.contains(point.x())) {
					xs.add(point.x());
				}
			}
		}
		Scale x = Scale.log2(minX, maxX, left, right);
		Scale y = panel.logY() ? Scale.log10(minY, maxY, bottom, top) : Scale.linear(maxY, bottom, top);

		for (double tick : y.ticks()) {
			double at = y.at(tick);
			svg.append(format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", left, at,
					right, at));
			svg.append(format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", left - 6, at + 4,
					number(tick)));
		}
		for (double tick : xs) {
			double at = x.at(tick);
			svg.append(format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#f0f0f0\"/>\n", at, top,
					at, bottom));
			svg.append(format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", at, bottom + 15,
					number(tick)));
		}
		svg.append(
				format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#555\"/>\n",
						left, top, right - left, bottom - top));
		svg.append(format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", (left + right) / 2,
				bottom + 32, escape(panel.xLabel())));
		svg.append(format("<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
				offset + 16.0, (top + bottom) / 2, escape(panel.yLabel())));

		int line = 0;
		for (Series series : panel.series()) {
			StringBuilder path = new StringBuilder();
			for (Point point : series.points()) {
				double px = x.at(point.x());
				path.append(format("%.1f,%.1f ", px, y.at(point.y())));
				double low = y.at(point.low());
				double high = y.at(point.high());
				svg.append(format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", px, low,
						px, high, series.color()));
				svg.append(format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", px - 3,
						low, px + 3, low, series.color()));
				svg.append(format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", px - 3,
						high, px + 3, high, series.color()));
			}
			svg.append(format("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
					path.toString().strip(), series.color()));
			for (Point point : series.points()) {
				svg.append(format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x.at(point.x()),
						y.at(point.y()), series.color()));
			}
			double legendY = bottom + 50 + line * LEGEND_LINE;
			svg.append(
					format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
							left, legendY - 4, left + 18, legendY - 4, series.color()));
			svg.append(format("<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", left + 24, legendY, escape(series.name())));
			line++;
		}
	}

	private static String number(double value) {
		if (value >= 10 || value == Math.rint(value)) {
			return format("%,.0f", value);
		}
		return (value >= 1) ? format("%.1f", value) : format("%.2f", value);
	}

	private static String format(String pattern, Object... arguments) {
		return String.format(Locale.ROOT, pattern, arguments);
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

	/**
	 * One panel.
	 *
	 * @param title above the panel
	 * @param xLabel under the x axis
	 * @param yLabel beside the y axis
	 * @param logY whether the y axis is logarithmic
	 * @param series the lines
	 */
	record Panel(String title, String xLabel, String yLabel, boolean logY, List<Series> series) {

	}

	/**
	 * One line.
	 *
	 * @param name in the legend
	 * @param color an SVG colour
	 * @param points the points, by ascending x
	 */
	record Series(String name, String color, List<Point> points) {

	}

	/**
	 * One point with its spread.
	 *
	 * @param x the x value, positive
	 * @param y the median
	 * @param low the spread's lower end
	 * @param high the spread's upper end
	 */
	record Point(double x, double y, double low, double high) {

		static Point of(double x, Summary summary) {
			return new Point(x, summary.median(), summary.low(), summary.high());
		}

	}

	/**
	 * Maps values to pixels.
	 */
	private record Scale(double from, double to, double pixelFrom, double pixelTo, Kind kind, List<Double> ticks) {

		enum Kind {

			LINEAR, LOG2, LOG10

		}

		static Scale log2(double min, double max, double pixelFrom, double pixelTo) {
			double from = log(min, 2) - 0.3;
			double to = log(max, 2) + 0.3;
			return new Scale(from, to, pixelFrom, pixelTo, Kind.LOG2, List.of());
		}

		static Scale log10(double min, double max, double pixelFrom, double pixelTo) {
			double from = Math.floor(Math.log10(Math.max(min, 1e-6)));
			double to = Math.ceil(Math.log10(Math.max(max, 1e-6)));
			if (to <= from) {
				to = from + 1;
			}
			List<Double> ticks = new ArrayList<>();
			for (double decade = from; decade <= to; decade++) {
				for (int step : new int[] { 1, 2, 5 }) {
					double tick = step * Math.pow(10, decade);
					if (Math.log10(tick) <= to + 1e-9) {
						ticks.add(tick);
					}
				}
			}
			return new Scale(from, to, pixelFrom, pixelTo, Kind.LOG10, ticks);
		}

		static Scale linear(double max, double pixelFrom, double pixelTo) {
			double step = niceStep(max / 5);
			double to = Math.max(step, Math.ceil(max * 1.05 / step) * step);
			List<Double> ticks = new ArrayList<>();
			for (double tick = 0; tick <= to + step / 2; tick += step) {
				ticks.add(tick);
			}
			return new Scale(0, to, pixelFrom, pixelTo, Kind.LINEAR, ticks);
		}

		private static double niceStep(double rough) {
			double magnitude = Math.pow(10, Math.floor(Math.log10(Math.max(rough, 1e-9))));
			double fraction = rough / magnitude;
			double nice = (fraction <= 1) ? 1 : (fraction <= 2) ? 2 : (fraction <= 5) ? 5 : 10;
			return nice * magnitude;
		}

		private static double log(double value, double base) {
			return Math.log(value) / Math.log(base);
		}

		double at(double value) {
			double position = switch (this.kind) {
				case LINEAR -> value;
				case LOG2 -> log(value, 2);
				case LOG10 -> Math.log10(Math.max(value, 1e-6));
			};
			return this.pixelFrom + (position - this.from) / (this.to - this.from) * (this.pixelTo - this.pixelFrom);
		}

	}

}
