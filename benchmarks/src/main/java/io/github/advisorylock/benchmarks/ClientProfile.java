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
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import io.github.advisorylock.testsupport.TestDatabase;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Where a call's client-side CPU time and allocations go, for {@code @AdvisoryLocked},
 * {@code AdvisoryLockOperations} and the hand-written lock with the same isolation check:
 * each runs alone, single-threaded, under async-profiler (CPU time sampled with
 * {@code itimer}, which needs no perf_events, and scaled to the calling thread's own CPU
 * time; allocations sampled by size), and the profile is folded into the share of each
 * stage of the call. A run of its own, so that the profiler weighs on nothing that
 * {@link Benchmarks} measures:
 * {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pprofile}.
 */
public final class ClientProfile {

	/**
	 * The frames that tell the stages of a call apart, outermost first: a sample counts
	 * for the innermost it has.
	 */
	private static final Map<String, String> STAGES = stages();

	private static final int SECONDS = 12;

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private ClientProfile() {
	}

	private static Map<String, String> stages() {
		Map<String, String> stages = new LinkedHashMap<>();
		stages.put("TransactionAspectSupport.invokeWithinTransaction", "transaction interceptor");
		stages.put("AdvisoryLockInterceptor.invoke", "advisory-lock interceptor");
		stages.put("AdvisoryLockAttributeSource.getAttribute", "annotation lookup (cached)");
		stages.put("AdvisoryLockAspectSupport.keys", "key expression (SpEL)");
		stages.put("LockKeys.resolve", "key derivation (SHA-256)");
		stages.put("AdvisoryLockTemplate.lock", "lock: the template's own work");
		stages.put("TransactionLockSynchronization.record", "lock: record of what the transaction took");
		stages.put("DataSourceUtils.getConnection", "lock: the transaction's connection");
		stages.put("JdbcTransactionLockExecutor.bind", "lock: the transaction's connection");
		stages.put("HandWrittenCalls.execute", "lock: the statement (JDBC)");
		stages.put("JdbcTransactionLockStatements.tryLock", "lock: the statement (JDBC)");
		stages.put("JdbcAcquisitionSupport.waitOne", "lock: the statement (JDBC)");
		stages.put("JdbcAcquisitionSupport.waitFor", "lock: the statement (JDBC)");
		stages.put("AbstractPlatformTransactionManager.commit", "commit");
		stages.put("AbstractPlatformTransactionManager.getTransaction", "begin");
		// What a thread does when it is not running: innermost, so they win over the
		// stage they wait in. A socket read waits for the server; a park, for a Java
		// lock or the pool.
		stages.put("NioSocketImpl.read", "socket read (the wait for the server)");
		stages.put("LockSupport.park", "parked (a Java lock, the pool)");
		stages.put("Object.wait", "parked (a Java lock, the pool)");
		return stages;
	}

	/**
	 * Profile each variant and print its stages.
	 * @param args the directory for the raw profiles (default {@code target/profiles})
	 */
	public static void main(String[] args) throws Exception {
		Path directory = Files.createDirectories(Path.of((args.length > 0) ? args[0] : "target/profiles"));
		AsyncProfiler profiler = AsyncProfiler.getInstance(library(directory).toString());
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(TestDatabase.get())) {
			AnnotatedCalls annotated = context.getBean(AnnotatedCalls.class);
			HandWrittenCalls handWritten = context.getBean(HandWrittenCalls.class);
			Map<String, Runnable> variants = new LinkedHashMap<>();
			variants.put(CostBenchmark.ANNOTATION, () -> annotated.lockOne(random()));
			variants.put(CostBenchmark.OPERATIONS, () -> handWritten.operations(random()));
			variants.put(CostBenchmark.CHECKED_FLOOR, () -> handWritten.checkedFloor(random()));
			for (Map.Entry<String, Runnable> variant : variants.entrySet()) {
				runFor(variant.getValue(), 5);
				for (String event : List.of("itimer", "alloc")) {
					profiler.execute("start,event=" + event + ",interval=" + (event.equals("itimer") ? "1ms" : "64k"));
					long cpuBefore = THREADS.getCurrentThreadCpuTime();
					long calls = runFor(variant.getValue(), SECONDS);
					long cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuBefore;
					profiler.execute("stop");
					// CPU: itimer ticks at the kernel's timer resolution whatever the
					// interval asked, so its samples give each stage's share, and the
					// thread's own CPU time the total. Allocations: bytes.
					boolean cpu = event.equals("itimer");
					String collapsed = profiler.dumpCollapsed(cpu ? Counter.SAMPLES : Counter.TOTAL);
					Files.writeString(directory.resolve(slug(variant.getKey()) + "-" + event + ".collapsed"),
							collapsed);
					System.out.println(report(variant.getKey(), cpu, collapsed, calls, cpuNanos));
				}
			}
		}
		System.exit(0);
	}

	private static long runFor(Runnable call, int seconds) {
		long end = System.nanoTime() + seconds * 1_000_000_000L;
		long calls = 0;
		while (System.nanoTime() < end) {
			call.run();
			calls++;
		}
		return calls;
	}

	/**
	 * Fold a collapsed profile (one stack and its count a line) into the stages, per
	 * call: for CPU, each stage's share of the samples times the calling thread's CPU
	 * time, in microseconds; for allocations, bytes.
	 */
	static String report(String variant, boolean cpu, String collapsed, long calls, long cpuNanos) {
		Map<String, Long> byStage = fold(collapsed, (stack) -> true);
		long total = byStage.values().stream().mapToLong(Long::longValue).sum();
		double perCall = cpu ? cpuNanos / 1e3 / calls : (double) total / calls;
		return String.format(Locale.ROOT, "== %s, %s: %,d calls, %.2f %s a call%n", variant,
				cpu ? "CPU" : "allocations", calls, perCall, cpu ? "µs of CPU" : "bytes") + stages(byStage, perCall);
	}

	/**
	 * Fold a collapsed profile (one stack and its count a line) into the stages: a sample
	 * counts for the innermost stage frame its stack has.
	 * @param keep which stacks to count
	 * @return each stage's samples
	 */
	static Map<String, Long> fold(String collapsed, Predicate<String> keep) {
		Map<String, Long> byStage = new LinkedHashMap<>();
		for (String line : collapsed.split("\\n")) {
			int space = line.lastIndexOf(' ');
			if (space < 0 || !keep.test(line)) {
				continue;
			}
			long value = Long.parseLong(line.substring(space + 1).trim());
			String stack = line.substring(0, space);
			String stage = "other (the proxy, the pool, the JVM)";
			int deepest = -1;
			for (Map.Entry<String, String> candidate : STAGES.entrySet()) {
				int at = stack.lastIndexOf(candidate.getKey());
				if (at > deepest) {
					deepest = at;
					stage = candidate.getValue();
				}
			}
			byStage.merge(stage, value, Long::sum);
		}
		return byStage;
	}

	/**
	 * Print each stage's part of a total, largest first.
	 * @param byStage each stage's samples
	 * @param perCall the total a call, which the samples share out
	 */
	static String stages(Map<String, Long> byStage, double perCall) {
		long all = byStage.values().stream().mapToLong(Long::longValue).sum();
		StringBuilder text = new StringBuilder();
		byStage.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.forEach((stage) -> text.append(
					String.format(Locale.ROOT, "   %-44s %10.2f%n", stage.getKey(), perCall * stage.getValue() / all)));
		return text.toString();
	}

	static Path library(Path directory) throws IOException {
		String platform = System.getProperty("os.arch").contains("aarch64") ? "linux-arm64" : "linux-x64";
		Path library = directory.resolve("libasyncProfiler.so");
		try (InputStream in = AsyncProfiler.class.getResourceAsStream("/" + platform + "/libasyncProfiler.so")) {
			if (in == null) {
				throw new IllegalStateException("async-profiler has no library for " + platform);
			}
			Files.copy(in, library, StandardCopyOption.REPLACE_EXISTING);
		}
		return library;
	}

	private static String slug(String variant) {
		return variant.replaceAll("[^A-Za-z]+", "-").replaceAll("(^-|-$)", "").toLowerCase(Locale.ROOT);
	}

	private static long random() {
		return ThreadLocalRandom.current().nextLong();
	}

}
