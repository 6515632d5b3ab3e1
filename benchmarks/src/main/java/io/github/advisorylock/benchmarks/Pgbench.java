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
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.advisorylock.testsupport.TestDatabase;

/**
 * PostgreSQL's own benchmark client, {@code pgbench}, doing a lock's work from C: each
 * client runs {@code BEGIN; SELECT pg_advisory_xact_lock(key); COMMIT;} with prepared
 * statements (three round trips, where pgjdbc sends {@code BEGIN} with the lock), on a
 * random key each transaction or on one hot key. It shows what the server sustains on the
 * same machine with a client that costs almost no CPU. Its per-transaction log gives the
 * same window as {@link ClosedLoop}: the transactions completed between the end of the
 * warm-up and the end of the window.
 */
final class Pgbench {

	private static final Duration LONG_ENOUGH = Duration.ofSeconds(120);

	private final Path executable;

	private final Map<String, String> environment;

	private Pgbench(Path executable, Map<String, String> environment) {
		this.executable = executable;
		this.environment = environment;
	}

	/**
	 * Find pgbench: on the path, or in Debian's versioned directories.
	 * @param database the server to run it against
	 * @return pgbench, or {@code null} where it is not installed
	 */
	static Pgbench find(TestDatabase database) {
		Path executable = locate();
		if (executable == null) {
			return null;
		}
		// jdbc:postgresql://host:port/database?...
		URI uri = URI.create(database.url().substring("jdbc:".length()));
		return new Pgbench(executable,
				Map.of("PGHOST", uri.getHost(), "PGPORT", Integer.toString((uri.getPort() > 0) ? uri.getPort() : 5432),
						"PGDATABASE", uri.getPath().substring(1), "PGUSER", database.username(), "PGPASSWORD",
						database.password()));
	}

	private static Path locate() {
		for (String directory : System.getenv().getOrDefault("PATH", "").split(":")) {
			if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, "pgbench"))) {
				return Path.of(directory, "pgbench");
			}
		}
		// Debian installs the client of each major version apart, and only its wrapper on
		// the path.
		Path versions = Path.of("/usr/lib/postgresql");
		if (!Files.isDirectory(versions)) {
			return null;
		}
		try (Stream<Path> each = Files.list(versions)) {
			return each.map((version) -> version.resolve("bin/pgbench"))
				.filter(Files::isExecutable)
				.max(Comparator.naturalOrder())
				.orElse(null);
		}
		catch (IOException ex) {
			return null;
		}
	}

	/**
	 * Return pgbench's version line.
	 * @return for example {@code pgbench (PostgreSQL) 15.18}
	 */
	String version() throws IOException, InterruptedException {
		return run(List.of(this.executable.toString(), "--version")).trim();
	}

	/**
	 * Run closed-loop clients for a warm-up and one window.
	 * @param clients how many clients, each with a connection of its own
	 * @param hotKey whether every transaction locks the same key, or a random one
	 * @param warmup how long to run before the window
	 * @param window the window's length
	 * @return the transactions completed in the window
	 */
	ClosedLoop.Window run(int clients, boolean hotKey, Duration warmup, Duration window)
			throws IOException, InterruptedException {
		Path directory = Files.createTempDirectory("pgbench");
		try {
			Path script = directory.resolve("lock.sql");
			// Keys up to 2^62: pgbench's random() needs the range's width to fit 64 bits.
			Files.writeString(script,
					hotKey ? "BEGIN;\nSELECT pg_advisory_xact_lock(4242);\nCOMMIT;\n"
							: "\\set key random(1, 4611686018427387903)\n"
									+ "BEGIN;\nSELECT pg_advisory_xact_lock(:key);\nCOMMIT;\n");
			// Whole seconds only: a margin past the window, which the log's times cut
			// off.
			long seconds = (warmup.plus(window).toMillis() + 1250) / 1000;
			run(List.of(this.executable.toString(), "--no-vacuum", "--protocol=prepared", "--client=" + clients,
					"--jobs=" + Math.min(clients, 2), "--time=" + seconds, "--file=" + script, "--log",
					"--log-prefix=" + directory.resolve("tx")));
			return window(transactions(directory), warmup, window);
		}
		finally {
			try (Stream<Path> files = Files.list(directory)) {
				for (Path file : files.toList()) {
					Files.deleteIfExists(file);
				}
			}
			Files.deleteIfExists(directory);
		}
	}

	/**
	 * Read the transaction logs, one line a transaction: client, transaction number,
	 * latency in µs, script, completion time in seconds and µs.
	 * @return each transaction's completion time and latency, in µs
	 */
	static List<long[]> transactions(Path directory) throws IOException {
		List<long[]> transactions = new ArrayList<>();
		try (Stream<Path> files = Files.list(directory)) {
			for (Path log : files.filter((file) -> file.getFileName().toString().startsWith("tx.")).toList()) {
				for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
					String[] fields = line.trim().split("\\s+");
					if (fields.length >= 6) {
						long latency = Long.parseLong(fields[2]);
						long finished = Long.parseLong(fields[4]) * 1_000_000 + Long.parseLong(fields[5]);
						transactions.add(new long[] { finished, latency });
					}
				}
			}
		}
		if (transactions.isEmpty()) {
			throw new IllegalStateException("pgbench logged no transaction in " + directory);
		}
		return transactions;
	}

	/**
	 * Keep the transactions completed in the window, which starts a warm-up after the
	 * first transaction began.
	 */
	static ClosedLoop.Window window(List<long[]> transactions, Duration warmup, Duration window) {
		long start = transactions.stream()
			.mapToLong((transaction) -> transaction[0] - transaction[1])
			.min()
			.orElseThrow();
		long from = start + warmup.toNanos() / 1000;
		long to = from + window.toNanos() / 1000;
		long last = transactions.stream().mapToLong((transaction) -> transaction[0]).max().orElseThrow();
		if (last < to) {
			throw new IllegalStateException("pgbench stopped before the window's end");
		}
		double[] latencies = transactions.stream()
			.filter((transaction) -> transaction[0] >= from && transaction[0] < to)
			.mapToDouble((transaction) -> transaction[1] / 1e3)
			.toArray();
		return new ClosedLoop.Window(latencies.length, window.toNanos() / 1e9, latencies, new double[0]);
	}

	private String run(List<String> command) throws IOException, InterruptedException {
		Path output = Files.createTempFile("pgbench", ".out");
		try {
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(output.toFile());
			builder.environment().putAll(this.environment);
			Process process = builder.start();
			if (!process.waitFor(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("pgbench did not end within " + LONG_ENOUGH + ": " + command);
			}
			String text = Files.readString(output);
			if (process.exitValue() != 0) {
				throw new IllegalStateException("pgbench failed (exit " + process.exitValue() + "): " + text);
			}
			return text;
		}
		finally {
			Files.deleteIfExists(output);
		}
	}

}
