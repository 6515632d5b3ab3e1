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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for how {@link Pgbench} reads pgbench's per-transaction logs into the same window
 * {@link ClosedLoop} measures, on logs written here as pgbench writes them.
 */
class PgbenchTests {

	@TempDir
	Path logs;

	/**
	 * A line as pgbench writes it: client, transaction, latency in µs, script, and the
	 * end time in seconds and µs.
	 */
	private static String line(int client, long latencyMicros, long endMicros) {
		return client + " 0 " + latencyMicros + " 0 " + (endMicros / 1_000_000) + " " + (endMicros % 1_000_000);
	}

	@Test
	void theWindowStartsAWarmUpAfterTheFirstTransactionBeganAndCountsWhatEndedInIt() throws IOException {
		long start = 1_700_000_000_000_000L;
		// Thread 0's log and thread 1's: the first transaction began at start.
		Files.write(this.logs.resolve("tx.123"),
				List.of(line(0, 500, start + 500), line(0, 300, start + 200_000), line(0, 700, start + 700_000)));
		Files.write(this.logs.resolve("tx.123.1"),
				List.of(line(1, 400, start + 250_000), line(1, 900, start + 1_300_000)));
		// Not a log of pgbench's.
		Files.writeString(this.logs.resolve("lock.sql"), "SELECT 1;\n");
		ClosedLoop.Window window = Pgbench.window(Pgbench.transactions(this.logs), Duration.ofMillis(100),
				Duration.ofSeconds(1));
		// From start + 0.1 s to start + 1.1 s: the three in between.
		assertThat(window.calls()).isEqualTo(3);
		assertThat(window.seconds()).isEqualTo(1.0);
		assertThat(window.latencyMillis()).containsExactlyInAnyOrder(0.3, 0.7, 0.4);
	}

	@Test
	void aRunThatEndedBeforeTheWindowDidIsRefused() throws IOException {
		long start = 1_700_000_000_000_000L;
		Files.write(this.logs.resolve("tx.7"), List.of(line(0, 500, start + 500), line(0, 500, start + 900_000)));
		List<long[]> transactions = Pgbench.transactions(this.logs);
		assertThatIllegalStateException()
			.isThrownBy(() -> Pgbench.window(transactions, Duration.ofMillis(100), Duration.ofSeconds(1)))
			.withMessageContaining("stopped before the window's end");
	}

}
