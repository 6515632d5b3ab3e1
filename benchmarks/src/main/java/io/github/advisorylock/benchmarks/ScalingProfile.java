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
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.github.advisorylock.testsupport.TestDatabase;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Where the time goes at 32 callers, for {@code @AdvisoryLocked} and the hand-written
 * lock with the same checks, on a random key per call and on one hot key. First without
 * the profiler: calls per second, and the CPU each call costs the machine, the JVM's part
 * (client) and the rest (PostgreSQL's backends, mostly). Then under async-profiler, the
 * callers' threads only: their CPU time ({@code itimer}) and their wall-clock time, both
 * folded into the stages of a call as {@link ClientProfile} folds them, per call; and the
 * Java locks they waited on. A run of its own, the raw profiles kept:
 * {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pprofile -Dprofile.main=io.github.advisorylock.benchmarks.ScalingProfile}.
 */
public final class ScalingProfile {

	private static final int CALLERS = 32;

	private static final Duration WINDOW = Duration.ofSeconds(8);

	private static final Path PROC_STAT = Path.of("/proc/stat");

	private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private ScalingProfile() {
	}

	/**
	 * Measure and profile each variant, and print what was found.
	 * @param args the directory for the raw profiles (default {@code target/profiles})
	 */
	public static void main(String[] args) throws Exception {
		Path directory = Files.createDirectories(Path.of((args.length > 0) ? args[0] : "target/profiles"));
		AsyncProfiler profiler = AsyncProfiler.getInstance(ClientProfile.library(directory).toString());
		System.setProperty(TestDatabase.DURABLE_PROPERTY, "true");
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(TestDatabase.get())) {
			BenchmarkApplication.resizePool(context, CALLERS);
			AnnotatedCalls annotated = context.getBean(AnnotatedCalls.class);
			HandWrittenCalls handWritten = context.getBean(HandWrittenCalls.class);
			long hot = ThreadLocalRandom.current().nextLong();
			Map<String, ClosedLoop.Call> variants = new LinkedHashMap<>();
			variants.put("`@AdvisoryLocked`, a key per call", (caller) -> {
				annotated.lockOne(ThreadLocalRandom.current().nextLong());
				return 0;
			});
			variants.put("hand-written, a key per call", (caller) -> {
				handWritten.fullyCheckedFloor(ThreadLocalRandom.current().nextLong());
				return 0;
			});
			variants.put("`@AdvisoryLocked`, one hot key", (caller) -> {
				annotated.lockOne(hot);
				return 0;
			});
			variants.put("hand-written, one hot key", (caller) -> {
				handWritten.fullyCheckedFloor(hot);
				return 0;
			});
			// Every variant warm before any is measured, then measured twice,
			// alternating,
			// as the JIT and this shared machine's load drift.
			for (ClosedLoop.Call call : variants.values()) {
				ClosedLoop.run(CALLERS, Duration.ofSeconds(5), 1, Duration.ofSeconds(1), call);
			}
			for (int round = 0; round < 2; round++) {
				for (Map.Entry<String, ClosedLoop.Call> variant : variants.entrySet()) {
					System.out.print(accounting(variant.getKey(), variant.getValue()));
				}
			}
			System.out.println();
			for (Map.Entry<String, ClosedLoop.Call> variant : variants.entrySet()) {
				System.out.println("== " + variant.getKey() + ", under the profiler");
				for (String event : List.of("itimer", "wall", "lock")) {
					profiler.execute("start,threads,event=" + event + ",interval=" + interval(event));
					long cpuBefore = OS.getProcessCpuTime();
					ClosedLoop.Window window = run(variant.getValue());
					long cpuNanos = OS.getProcessCpuTime() - cpuBefore;
					profiler.execute("stop");
					String collapsed = profiler.dumpCollapsed(event.equals("lock") ? Counter.TOTAL : Counter.SAMPLES);
					Files.writeString(
							directory.resolve("scaling-" + slug(variant.getKey()) + "-" + event + ".collapsed"),
							collapsed);
					System.out.println(report(event, collapsed, window, cpuNanos));
				}
			}
		}
		System.exit(0);
	}

	private static String interval(String event) {
		return switch (event) {
			case "wall" -> "5ms";
			case "lock" -> "10us";
			default -> "1ms";
		};
	}

	private static ClosedLoop.Window run(ClosedLoop.Call call) {
		// No warm-up: the variant ran just before, and every call counts against the CPU.
		return ClosedLoop.run(CALLERS, Duration.ZERO, 1, WINDOW, call).get(0);
	}

	/**
	 * Run the variant without the profiler: its calls per second, and the CPU a call
	 * costs the machine and the JVM.
	 */
	private static String accounting(String variant, ClosedLoop.Call call) throws IOException {
		long jvmBefore = OS.getProcessCpuTime();
		long[] machineBefore = machineTicks();
		ClosedLoop.Window window = run(call);
		long jvmNanos = OS.getProcessCpuTime() - jvmBefore;
		long[] machineAfter = machineTicks();
		// /proc/stat counts in USER_HZ, 100 a second on Linux.
		double machineMicros = (machineAfter[0] - machineBefore[0]) * 10_000.0;
		double idle = (double) (machineAfter[1] - machineBefore[1]) / (machineAfter[2] - machineBefore[2]);
		return String.format(Locale.ROOT,
				"%s, %d callers: %.0f calls/s, p99 %.2f ms; CPU a call: %.1f µs on the machine, %.1f µs in the "
						+ "JVM, %.1f µs elsewhere (PostgreSQL, mostly); the machine idle %.0f%% of the time%n",
				variant, CALLERS, window.throughput(), window.latencyPercentile(99), machineMicros / window.calls(),
				jvmNanos / 1e3 / window.calls(), (machineMicros - jvmNanos / 1e3) / window.calls(), idle * 100);
	}

	/**
	 * The machine's busy ticks, idle ticks and all ticks, from /proc/stat's first line.
	 */
	private static long[] machineTicks() throws IOException {
		String[] fields = Files.readAllLines(PROC_STAT).get(0).trim().split("\\s+");
		long all = 0;
		for (int i = 1; i < fields.length && i <= 8; i++) {
			all += Long.parseLong(fields[i]);
		}
		// idle and iowait
		long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
		return new long[] { all - idle, idle, all };
	}

	/**
	 * Fold the callers' stacks into the stages, per call: CPU and wall-clock time in
	 * microseconds, Java lock waits in microseconds.
	 * @param cpuNanos the JVM's CPU time during the window, which the CPU samples share
	 * out
	 */
	static String report(String event, String collapsed, ClosedLoop.Window window, long cpuNanos) {
		Map<String, Long> byStage = ClientProfile.fold(collapsed, (line) -> line.startsWith("[caller-"));
		long samples = byStage.values().stream().mapToLong(Long::longValue).sum();
		StringBuilder text = new StringBuilder(
				String.format(Locale.ROOT, "%s: %.0f calls/s%n", event, window.throughput()));
		switch (event) {
			case "itimer" -> {
				long all = ClientProfile.fold(collapsed, (line) -> true)
					.values()
					.stream()
					.mapToLong(Long::longValue)
					.sum();
				double perCall = cpuNanos / 1e3 * samples / all / window.calls();
				text.append(String.format(Locale.ROOT,
						"-- CPU of the callers' threads: %.1f µs a call (%.0f%% of the JVM's)%n", perCall,
						100.0 * samples / all));
				text.append(ClientProfile.stages(byStage, perCall));
			}
			case "wall" -> {
				double perCall = CALLERS * WINDOW.toNanos() / 1e3 / window.calls();
				text.append(String.format(Locale.ROOT, "-- wall-clock time of a call: %.1f µs%n", perCall));
				text.append(ClientProfile.stages(byStage, perCall));
			}
			default -> {
				text.append(String.format(Locale.ROOT, "-- Java lock waits: %.2f µs a call%n",
						samples / 1e3 / window.calls()));
				if (samples > 0) {
					text.append(ClientProfile.stages(byStage, samples / 1e3 / window.calls()));
				}
			}
		}
		return text.toString();
	}

	private static String slug(String variant) {
		return variant.replaceAll("[^A-Za-z]+", "-").replaceAll("(^-|-$)", "").toLowerCase(Locale.ROOT);
	}

}
