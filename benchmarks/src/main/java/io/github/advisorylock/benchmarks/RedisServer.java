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

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A local Redis for the peers of the concurrency limits: Debian's {@code redis-server},
 * started on a free loopback port without persistence, and stopped with the benchmark, as
 * PgBouncer is for the tests. Where it is not installed the peers are skipped, with a
 * message naming the package.
 */
final class RedisServer implements AutoCloseable {

	/** What to install where the binary is missing. */
	static final String INSTALL_HINT = "apt-get install redis-server";

	private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

	private final Process process;

	private final int port;

	private RedisServer(Process process, int port) {
		this.process = process;
		this.port = port;
	}

	/**
	 * Start a Redis, if one is installed.
	 * @return the running server, or {@code null} where {@code redis-server} is not
	 * installed
	 * @throws IOException if it is installed and does not start
	 */
	static @Nullable RedisServer startIfInstalled() throws IOException, InterruptedException {
		Path binary = binary();
		if (binary == null) {
			return null;
		}
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Process process = new ProcessBuilder(binary.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no")
			.redirectErrorStream(true)
			.redirectOutput(File.createTempFile("redis-server", ".log"))
			.start();
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (true) {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
				return new RedisServer(process, port);
			}
			catch (IOException ex) {
				if (!process.isAlive() || System.nanoTime() > deadline) {
					process.destroyForcibly();
					throw new IOException("redis-server did not start on port " + port, ex);
				}
				Thread.sleep(50);
			}
		}
	}

	private static @Nullable Path binary() {
		String path = System.getenv("PATH");
		Stream<String> directories = Stream.concat(
				(path != null) ? Stream.of(path.split(File.pathSeparator)) : Stream.empty(),
				List.of("/usr/bin", "/usr/sbin").stream());
		return directories.map((directory) -> Path.of(directory, "redis-server"))
			.filter(Files::isExecutable)
			.findFirst()
			.orElse(null);
	}

	/**
	 * Return the address Redisson connects to.
	 * @return {@code redis://127.0.0.1:port}
	 */
	String address() {
		return "redis://127.0.0.1:" + this.port;
	}

	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		this.process.waitFor();
	}

}
