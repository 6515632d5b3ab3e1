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

package io.github.advisorylock.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * One sample-app process of a multi-instance test: its own JVM on the test class path,
 * against the test database, on a free loopback port, with its output copied to a log
 * file and kept for assertions; the test can stop, kill, suspend and resume it.
 */
public final class SampleInstance {

	private static final Set<Process> alive = ConcurrentHashMap.newKeySet();

	static {
		// Should this JVM end before the tests do, its children end with it.
		Runtime.getRuntime().addShutdownHook(new Thread(() -> alive.forEach(Process::destroyForcibly)));
	}

	private final String name;

	private final int port;

	private final Process process;

	private final Path log;

	private final List<String> output = new CopyOnWriteArrayList<>();

	private final CompletableFuture<Void> started = new CompletableFuture<>();

	private volatile boolean suspended;

	private SampleInstance(String name, int port, Process process, Path log) {
		this.name = name;
		this.port = port;
		this.process = process;
		this.log = log;
	}

	/**
	 * Start an instance; it is ready after {@link #awaitStarted()}.
	 * @param name its name, given as {@code sample.instance} and naming its log
	 * @param logs the directory of the log
	 * @param arguments more command line arguments, such as
	 * {@code --advisory-lock.default-timeout=10s}
	 * @return the instance, starting
	 * @throws IOException if the process cannot be started
	 */
	public static SampleInstance start(String name, Path logs, String... arguments) throws IOException {
		return start(name, logs, TestDatabase.get().springDataSourceProperties(), arguments);
	}

	/**
	 * Start an instance on a data source of its own choosing, such as a PgBouncer in
	 * front of the test database; it is ready after {@link #awaitStarted()}.
	 * @param name its name, given as {@code sample.instance} and naming its log
	 * @param logs the directory of the log
	 * @param dataSource the {@code spring.datasource.*} properties, in place of the test
	 * database's
	 * @param arguments more command line arguments
	 * @return the instance, starting
	 * @throws IOException if the process cannot be started
	 */
	public static SampleInstance start(String name, Path logs, Map<String, String> dataSource, String... arguments)
			throws IOException {
		int port = freePort();
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(
				List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
						SampleApplication.class.getName(), "--server.port=" + port, "--server.address=127.0.0.1",
						"--spring.main.banner-mode=off", "--spring.sql.init.mode=never", "--sample.instance=" + name));
		command.addAll(List.of(arguments));
		dataSource.forEach((property, value) -> command.add("--" + property + "=" + value));
		Files.createDirectories(logs);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		alive.add(process);
		SampleInstance instance = new SampleInstance(name, port, process, logs.resolve(name + ".log"));
		instance.copyOutput();
		return instance;
	}

	/**
	 * Wait until the instance has started: Spring Boot logs that once the web server
	 * listens.
	 * @throws IllegalStateException if it exits first, or does not start within three
	 * hang timeouts (three JVMs starting at once on two cores)
	 */
	public void awaitStarted() {
		try {
			this.started.get(PgLocks.HANG_TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("Instance " + this.name + " did not start; see " + this.log, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while instance " + this.name + " started", ex);
		}
	}

	/**
	 * Return the name, as given in {@code sample.instance}.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Return a client of the instance's HTTP API.
	 * @return the client
	 */
	public Http http() {
		return new Http(this.port);
	}

	/**
	 * Return the lines the instance has written so far.
	 * @return a snapshot of its output
	 */
	public List<String> output() {
		return List.copyOf(this.output);
	}

	/**
	 * Wait for a line of output, among those written from a given line on.
	 * @param from the number of lines to skip, such as the size of an earlier
	 * {@link #output()}
	 * @param description what is awaited, for the failure message
	 * @param line the condition on a line
	 * @return the first matching line
	 * @throws AssertionError if none appears within the hang timeout
	 */
	public String awaitOutput(int from, String description, Predicate<String> line) {
		long deadline = System.nanoTime() + PgLocks.HANG_TIMEOUT.toNanos();
		while (true) {
			List<String> lines = output();
			for (String candidate : lines.subList(Math.min(from, lines.size()), lines.size())) {
				if (line.test(candidate)) {
					return candidate;
				}
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Instance " + this.name + " did not log " + description + " within "
						+ PgLocks.HANG_TIMEOUT + "; see " + this.log);
			}
			LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
		}
	}

	/**
	 * Kill the process with SIGKILL, as a crash or an OOM killer would: no shutdown hook,
	 * no rollback, its sockets closed by the kernel. Return once it has exited. A
	 * suspended process is killed too, and is no longer suspended.
	 */
	public void kill() {
		this.process.destroyForcibly();
		awaitExit();
		// Gone: stopAll must not send it SIGCONT.
		this.suspended = false;
	}

	/**
	 * Freeze the process with SIGSTOP, as a long GC pause, a stalled VM or a debugger
	 * would: every thread stops, its connections stay open and send nothing.
	 */
	public void suspend() {
		signal("STOP");
		this.suspended = true;
	}

	/**
	 * Let a {@link #suspend() suspended} process go on, with SIGCONT.
	 */
	public void resume() {
		signal("CONT");
		this.suspended = false;
	}

	/**
	 * Stop instances gracefully (SIGTERM, after resuming a suspended one, which would not
	 * act on it), at once so that their shutdowns overlap; one that has not exited after
	 * the hang timeout is killed.
	 * @param instances the instances
	 */
	public static void stopAll(List<SampleInstance> instances) {
		for (SampleInstance instance : instances) {
			if (instance.suspended) {
				instance.resume();
			}
			instance.process.destroy();
		}
		for (SampleInstance instance : instances) {
			instance.awaitExit();
		}
	}

	private void awaitExit() {
		try {
			if (!this.process.waitFor(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
				this.process.waitFor(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
		finally {
			alive.remove(this.process);
		}
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid()))
				.redirectErrorStream(true)
				.start();
			if (!kill.waitFor(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed: "
						+ new String(kill.getInputStream().readAllBytes(), UTF_8));
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run kill -" + signal, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while sending SIG" + signal, ex);
		}
	}

	/**
	 * Copy the output to the log and keep it, and complete {@link #started} on the line
	 * that says the application has started, or fail it when the output ends first: the
	 * process exited.
	 */
	private void copyOutput() {
		Thread copier = new Thread(() -> {
			try (BufferedReader output = new BufferedReader(
					new InputStreamReader(this.process.getInputStream(), UTF_8));
					Writer file = Files.newBufferedWriter(this.log, UTF_8)) {
				for (String line = output.readLine(); line != null; line = output.readLine()) {
					this.output.add(line);
					file.write(line + System.lineSeparator());
					// Flushed each line, so that the log is whole when a test fails while
					// the process still runs.
					file.flush();
					if (line.contains("Started " + SampleApplication.class.getSimpleName())) {
						this.started.complete(null);
					}
				}
			}
			catch (IOException ex) {
				this.started.completeExceptionally(ex);
			}
			this.started.completeExceptionally(new IllegalStateException("the process ended before it started"));
		}, "sample-instance-output-" + this.name);
		copier.setDaemon(true);
		copier.start();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
