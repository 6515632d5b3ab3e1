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
package io.github.advisorylock.sample.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos run: three sample-app JVMs, one through PgBouncer, against a durable
 * PostgreSQL primary with a streaming standby, under a seeded mixed HTTP load and one
 * fault after another, then the checks and the report. Tagged {@code chaos}, so outside
 * the default build; run it with {@code -Dgroups=chaos} (see
 * {@code docs/reliability.md}). {@code chaos.duration} (default 60s) is how long load and
 * faults run, {@code chaos.seed} (default 42) seeds both, and {@code chaos.report} names
 * a file to write the report to besides {@code target/chaos/reliability.md};
 * {@code chaos.replication} is {@code sync} (the default) or {@code async}.
 *
 * @author advisory-lock authors
 */
@Tag("chaos")
@DisabledOnOs(value = OS.WINDOWS, disabledReason = "freezes an instance with kill -STOP")
class ChaosTests {

	private static final Path LOGS = Path.of("target", "chaos");

	@Test
	void everyRuleHoldsAndNoAcknowledgedWriteIsLostWhileFaultsAreInjected() throws IOException {
		String durationText = System.getProperty("chaos.duration", "60s");
		Duration duration = DurationStyle.detectAndParse(durationText);
		long seed = Long.parseLong(System.getProperty("chaos.seed", "42"));
		long began = System.nanoTime();
		String loadBefore = loadAverage();
		try (ChaosCluster cluster = ChaosCluster.start(LOGS)) {
			ClientLog log = new ClientLog();
			LoadGenerator load = new LoadGenerator(cluster, log, seed);
			load.createData();
			InvariantSampler sampler = new InvariantSampler(cluster, log, load.limits(),
					LoadGenerator.ACCOUNTS * LoadGenerator.OPENING_BALANCE);
			FaultInjector faults = new FaultInjector(cluster, load, log, seed);
			sampler.start();
			load.start();
			try {
				faults.run(duration.toMillis());
			}
			finally {
				load.stop();
				sampler.stop();
			}
			// Once more, after the last write.
			sampler.sample();
			cluster.stopInstances();
			ChaosChecker.Findings findings = new ChaosChecker(cluster, log, faults.windows())
				.check(cluster.everStarted(), faults.failovers());
			findings.violations.addAll(0, sampler.violations());
			findings.violations.addAll(faults.failures());
			findings.jobAgainAfterFailover.addAll(faults.jobAgainAfterFailover());
			findings.frozenInFencedTransaction = faults.frozenInFencedTransaction();
			String environment = Runtime.getRuntime().availableProcessors() + " cores, " + memory() + ", load average "
					+ loadBefore + " before the run and " + loadAverage() + " after it; "
					+ System.getProperty("os.name") + " " + System.getProperty("os.version");
			String versions = cluster.versions() + "; Java " + System.getProperty("java.version");
			String command = "./mvnw -pl sample-app -am test -Dgroups=chaos -Dchaos.duration=" + durationText
					+ " -Dchaos.seed=" + seed + ((System.getProperty("chaos.report") != null)
							? " -Dchaos.report=" + System.getProperty("chaos.report") : "");
			String report = new ReliabilityReport().write(
					new ReliabilityReport.RunDescription(command, seed, duration,
							Duration.ofNanos(System.nanoTime() - began), environment, versions,
							Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()),
					log.answers(), faults.windows(), findings, sampler);
			ReliabilityReport.save(LOGS.resolve("reliability.md"), report);
			if (System.getProperty("chaos.report") != null) {
				ReliabilityReport.save(Path.of(System.getProperty("chaos.report")), report);
			}
			long failovers = faults.windows().stream().filter((window) -> window.kind() == FaultKind.FAILOVER).count();
			System.out.println("== chaos run, seed " + seed + ", " + cluster.replication().description()
					+ " replication: " + log.answers().size() + " requests, " + faults.windows().size() + " faults ("
					+ failovers + " failovers, the job again after " + findings.jobAgainAfterFailover + " ms), "
					+ findings.violations.size() + " violations, " + findings.lost.size()
					+ " lost acknowledged writes, " + findings.lostWithFailover.size()
					+ " lost with a failover (asynchronous replication only); report in "
					+ LOGS.resolve("reliability.md"));
			assertThat(findings.violations)
				.as("violations of the chaos run (seed %d); report in %s", seed, LOGS.resolve("reliability.md"))
				.isEmpty();
			assertThat(findings.lost).as("acknowledged writes lost in the chaos run (seed %d)", seed).isEmpty();
			assertThat(faults.windows()).as("faults injected").isNotEmpty();
			if (duration.compareTo(Duration.ofSeconds(60)) >= 0) {
				assertThat(failovers).as("failovers in a run of %s", duration).isPositive();
			}
		}
	}

	private static String loadAverage() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
			return fields[0] + " " + fields[1] + " " + fields[2];
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	private static String memory() {
		try {
			return Files.readAllLines(Path.of("/proc/meminfo"))
				.stream()
				.filter((line) -> line.startsWith("MemTotal:"))
				.map((line) -> (Long.parseLong(line.replaceAll("\\D", "")) / 1024 / 1024) + " GiB")
				.findFirst()
				.orElse("memory unknown");
		}
		catch (IOException ex) {
			return "memory unknown";
		}
	}

}
