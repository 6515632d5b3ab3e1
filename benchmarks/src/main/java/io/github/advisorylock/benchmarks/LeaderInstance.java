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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;

/**
 * One {@link LeaderProcess}, started in a JVM of its own: what it said, each line with
 * the time this JVM read it ({@link System#nanoTime()}), and signals to kill, stop and
 * continue it.
 */
final class LeaderInstance implements AutoCloseable {

	/** How long a wait for a line may take before the process is taken as hung. */
	static final Duration LONG_ENOUGH = Duration.ofSeconds(60);

	private static final int KEPT_OUTPUT = 40;

	private final String name;

	private final Process process;

	/** The election lines, in order; guarded by itself. */
	private final List<Line> lines = new ArrayList<>();

	/** The last lines of other output, for a failure's message; guarded by itself. */
	private final Deque<String> output = new ArrayDeque<>();

	private volatile boolean ended;

	private LeaderInstance(String name, Process process) {
		this.name = name;
		this.process = process;
		Thread reader = new Thread(this::read, "leader-instance-" + name);
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start an instance.
	 * @param name its name, for messages
	 * @param database the database of the locks
	 * @param registry {@code advisory} or {@code jdbc}
	 * @param namespace the namespace of the advisory locks
	 * @param role the role, the lock's key
	 * @param heartbeat the advisory locks' heartbeat
	 * @return the instance
	 */
	static LeaderInstance start(String name, TestDatabase database, String registry, String namespace, String role,
			Duration heartbeat) throws IOException {
		Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Xmx96m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
				LeaderProcess.class.getName(), database.url(), database.username(), database.password(), registry,
				namespace, role, Long.toString(heartbeat.toMillis()))
			.redirectErrorStream(true)
			.start();
		return new LeaderInstance(name, process);
	}

	String name() {
		return this.name;
	}

	/**
	 * Return how many election lines the instance has said so far, to look for a line
	 * said after this point.
	 * @return the count
	 */
	int mark() {
		synchronized (this.lines) {
			return this.lines.size();
		}
	}

	/**
	 * Return whether the instance's last election line says it leads.
	 * @return whether it leads
	 */
	boolean leads() {
		synchronized (this.lines) {
			return !this.lines.isEmpty() && this.lines.get(this.lines.size() - 1).text().equals(LeaderProcess.GRANTED);
		}
	}

	/**
	 * Return when the instance first said a line at or after a mark.
	 * @param text the line
	 * @param mark from {@link #mark()}
	 * @return when this JVM read it ({@link System#nanoTime()}), or {@code null} if not
	 * yet
	 */
	@Nullable Long saidSince(String text, int mark) {
		synchronized (this.lines) {
			for (int i = mark; i < this.lines.size(); i++) {
				if (this.lines.get(i).text().equals(text)) {
					return this.lines.get(i).nanos();
				}
			}
			return null;
		}
	}

	/**
	 * Wait until the instance says a line at or after a mark.
	 * @param text the line
	 * @param mark from {@link #mark()}
	 * @return when this JVM read it ({@link System#nanoTime()})
	 * @throws IllegalStateException if the process ends first or takes
	 * {@link #LONG_ENOUGH}
	 */
	long await(String text, int mark) {
		long deadline = System.nanoTime() + LONG_ENOUGH.toNanos();
		while (true) {
			Long said = saidSince(text, mark);
			if (said != null) {
				return said;
			}
			if (this.ended) {
				throw new IllegalStateException(describe() + " ended before it said '" + text + "'");
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(describe() + " did not say '" + text + "' within " + LONG_ENOUGH);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

	/**
	 * Send the process a signal with {@code kill}.
	 * @param signal {@code KILL}, {@code STOP} or {@code CONT}
	 */
	void signal(String signal) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).start();
		if (kill.waitFor() != 0) {
			throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
		}
	}

	/**
	 * Kill the process, stopped or not, and wait for its end.
	 */
	@Override
	public void close() throws InterruptedException {
		this.process.destroyForcibly();
		this.process.waitFor(LONG_ENOUGH.toSeconds(), TimeUnit.SECONDS);
	}

	/**
	 * Wait until one of the instances says it is granted the leadership at or after its
	 * mark.
	 * @param instances the instances
	 * @param marks each instance's mark, in the same order
	 * @return the instance granted, and when this JVM read its line
	 * @throws IllegalStateException if none is within {@link #LONG_ENOUGH}
	 */
	static Granted awaitGranted(List<LeaderInstance> instances, int[] marks) {
		long deadline = System.nanoTime() + LONG_ENOUGH.toNanos();
		while (true) {
			for (int i = 0; i < instances.size(); i++) {
				Long said = instances.get(i).saidSince(LeaderProcess.GRANTED, marks[i]);
				if (said != null) {
					return new Granted(instances.get(i), said);
				}
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("None of " + instances + " was granted leadership within " + LONG_ENOUGH
						+ ": " + instances.stream().map(LeaderInstance::describe).toList());
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

	/**
	 * Wait until one of the instances leads, and return it.
	 * @param instances the instances
	 * @return the first found to lead
	 */
	static LeaderInstance awaitLeader(List<LeaderInstance> instances) {
		long deadline = System.nanoTime() + LONG_ENOUGH.toNanos();
		while (true) {
			for (LeaderInstance instance : instances) {
				if (instance.leads()) {
					return instance;
				}
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("None of " + instances + " leads after " + LONG_ENOUGH);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

	private void read() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				long nanos = System.nanoTime();
				if (line.startsWith("leader-election: ")) {
					synchronized (this.lines) {
						this.lines.add(new Line(line, nanos));
					}
				}
				else {
					synchronized (this.output) {
						this.output.addLast(line);
						if (this.output.size() > KEPT_OUTPUT) {
							this.output.removeFirst();
						}
					}
				}
			}
		}
		catch (IOException ex) {
			// The process ended.
		}
		finally {
			this.ended = true;
		}
	}

	@Override
	public String toString() {
		return this.name + " (pid " + this.process.pid() + ")";
	}

	/**
	 * Describe the instance with its last lines of output, for a failure's message.
	 */
	private String describe() {
		synchronized (this.output) {
			return this + ", last output: " + String.join(" / ", this.output);
		}
	}

	/**
	 * An instance granted the leadership.
	 *
	 * @param instance the instance
	 * @param nanos when this JVM read its line ({@link System#nanoTime()})
	 */
	record Granted(LeaderInstance instance, long nanos) {

	}

	private record Line(String text, long nanos) {

	}

}
