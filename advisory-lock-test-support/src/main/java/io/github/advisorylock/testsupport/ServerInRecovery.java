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

package io.github.advisorylock.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.util.FileSystemUtils;

/**
 * A PostgreSQL server of its own in recovery, as a standby is: its data directory, made
 * by a first start, is started again with {@code standby.signal}. It has no primary, and
 * needs none: {@code pg_is_in_recovery()} is true there, and it takes advisory locks as a
 * standby does, excluding nobody elsewhere.
 */
public final class ServerInRecovery implements AutoCloseable {

	private static ServerInRecovery shared;

	private final Path data;

	private final EmbeddedPostgres server;

	private ServerInRecovery(Path data, EmbeddedPostgres server) {
		this.data = data;
		this.server = server;
	}

	/**
	 * Return the JVM's shared one, started at the first call and stopped as the JVM
	 * exits: tests that only read from it or lock on it share it, as a server start costs
	 * seconds on a busy machine. Closing it is a mistake, refused.
	 * @return the server, in recovery
	 * @throws IOException if it cannot be started
	 */
	public static synchronized ServerInRecovery shared() throws IOException {
		if (shared == null) {
			ServerInRecovery started = start();
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				try {
					started.stop();
				}
				catch (IOException ex) {
					// The JVM is exiting: its temporary directory is left.
				}
			}, "server-in-recovery-shutdown"));
			shared = started;
		}
		return shared;
	}

	/**
	 * Start one of the caller's own, which the caller closes.
	 * @return the server, in recovery
	 * @throws IOException if it cannot be started
	 */
	public static ServerInRecovery start() throws IOException {
		Path data = Files.createTempDirectory("advisory-lock-in-recovery");
		EmbeddedPostgres first = builder(data).start();
		first.close();
		awaitStopped(data);
		Files.createFile(data.resolve("standby.signal"));
		return new ServerInRecovery(data, builder(data).start());
	}

	/** Wait until the first start's server is gone: its pid file is removed last. */
	private static void awaitStopped(Path data) throws IOException {
		long deadline = System.nanoTime() + PgLocks.HANG_TIMEOUT.toNanos();
		while (Files.exists(data.resolve("postmaster.pid"))) {
			if (System.nanoTime() - deadline > 0) {
				throw new IOException("The server on " + data + " did not stop within " + PgLocks.HANG_TIMEOUT);
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException("Interrupted while waiting for the server on " + data + " to stop", ex);
			}
		}
	}

	private static EmbeddedPostgres.Builder builder(Path data) {
		return EmbeddedPostgres.builder()
			.setDataDirectory(data)
			.setCleanDataDirectory(false)
			.setPGStartupWait(Duration.ofSeconds(30));
	}

	/**
	 * Return the JDBC URL of its {@code postgres} database, as user {@code postgres}.
	 * @return the URL
	 */
	public String jdbcUrl() {
		return this.server.getJdbcUrl("postgres", "postgres");
	}

	/**
	 * Return the port it listens on, on the loopback address.
	 * @return the port
	 */
	public int port() {
		return this.server.getPort();
	}

	@Override
	public void close() throws IOException {
		if (this == shared) {
			throw new IllegalStateException("The shared server in recovery is stopped as the JVM exits");
		}
		stop();
	}

	private void stop() throws IOException {
		this.server.close();
		FileSystemUtils.deleteRecursively(this.data);
	}

}
