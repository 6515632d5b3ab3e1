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

import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * A figure over repeated rounds: the median, with its spread.
 *
 * @param median the median over the rounds
 * @param low the lower end of the spread
 * @param high the upper end of the spread
 */
record Summary(double median, double low, double high) {

	private static final int BOOTSTRAP_RESAMPLES = 10_000;

	/**
	 * Summarize per-round values.
	 * @param values one value per round
	 * @param spread the spread to report
	 * @return the summary
	 */
	static Summary of(double[] values, Spread spread) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return switch (spread) {
			case IQR -> new Summary(percentile(sorted, 50), percentile(sorted, 25), percentile(sorted, 75));
			case RANGE -> new Summary(percentile(sorted, 50), sorted[0], sorted[sorted.length - 1]);
			case CI95 ->
				new Summary(percentile(sorted, 50), bootstrapMedian(values, 2.5), bootstrapMedian(values, 97.5));
		};
	}

	/**
	 * Return a percentile of the median over bootstrap resamples of the rounds (drawn
	 * with replacement, 10,000 times, from a fixed seed so that the same rounds always
	 * give the same interval).
	 */
	private static double bootstrapMedian(double[] values, double percent) {
		Random random = new Random(values.length);
		double[] medians = new double[BOOTSTRAP_RESAMPLES];
		double[] resample = new double[values.length];
		for (int i = 0; i < medians.length; i++) {
			for (int k = 0; k < resample.length; k++) {
				resample[k] = values[random.nextInt(values.length)];
			}
			Arrays.sort(resample);
			medians[i] = percentile(resample, 50);
		}
		Arrays.sort(medians);
		return percentile(medians, percent);
	}

	/**
	 * Return a percentile of sorted values, interpolating between the two nearest ranks.
	 * @param sorted the values, ascending
	 * @param percent 0 to 100
	 * @return the percentile
	 */
	static double percentile(double[] sorted, double percent) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		double rank = percent / 100 * (sorted.length - 1);
		int below = (int) Math.floor(rank);
		int above = Math.min(below + 1, sorted.length - 1);
		return sorted[below] + (rank - below) * (sorted[above] - sorted[below]);
	}

	/**
	 * Return a percentile of unsorted values.
	 * @param values the values, left as they are
	 * @param percent 0 to 100
	 * @return the percentile
	 */
	static double percentileOf(double[] values, double percent) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return percentile(sorted, percent);
	}

	/**
	 * Format as "median (low–high)" with the given number of decimals.
	 * @param decimals digits after the point
	 * @return the text
	 */
	String format(int decimals) {
		String number = "%." + decimals + "f";
		return String.format(Locale.ROOT, number + " (" + number + "–" + number + ")", this.median, this.low,
				this.high);
	}

	/**
	 * Format as "median [low–high]", for a confidence interval.
	 * @param decimals digits after the point
	 * @return the text
	 */
	String bracketed(int decimals) {
		String number = "%." + decimals + "f";
		return String.format(Locale.ROOT, number + " [" + number + "–" + number + "]", this.median, this.low,
				this.high);
	}

	/**
	 * Format with as many decimals as the size of the median calls for: 3 significant
	 * digits, at least 0 decimals.
	 * @return the text
	 */
	String format() {
		double magnitude = Math.abs(this.median);
		int decimals = (magnitude >= 100) ? 0 : (magnitude >= 10) ? 1 : (magnitude >= 1) ? 2 : 3;
		return format(decimals);
	}

	/**
	 * What the spread of a summary is.
	 */
	enum Spread {

		/** The 25th to 75th percentile of the rounds. */
		IQR,

		/** The lowest to the highest round. */
		RANGE,

		/**
		 * A 95% confidence interval of the median: the 2.5th to 97.5th percentile of
		 * bootstrapped medians.
		 */
		CI95

	}

}
