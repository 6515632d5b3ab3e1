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

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Scenarios 1–3 again, through a {@link DelayRelay}: once without delay (what the relay
 * itself costs) and once with {@value #ONE_WAY_MICROS} µs each way, a 0.5 ms round trip,
 * as between hosts in one region. Each pass is an application of its own, with its own
 * pool, connected to the relay.
 */
final class NetworkBenchmark {

	/** The delay each way of the slow pass, in microseconds. */
	static final long ONE_WAY_MICROS = 250;

	static final String NO_DELAY = "through the relay, no delay";

	static final String ROUND_TRIP = "through the relay, 0.5 ms round trip";

	private static final Pattern HOST_AND_PORT = Pattern.compile("//([^:/?]+):(\\d+)/");

	private final Settings settings;

	private final TestDatabase database;

	NetworkBenchmark(Settings settings, TestDatabase database) {
		this.settings = settings;
		this.database = database;
	}

	/**
	 * Run both passes.
	 * @return each pass's microseconds per call of each variant, per round, and the
	 * relay's lateness
	 */
	Map<String, Pass> run() throws Exception {
		Matcher matcher = HOST_AND_PORT.matcher(this.database.url());
		if (!matcher.find()) {
			throw new IllegalStateException("No host and port in " + this.database.url());
		}
		InetSocketAddress target = new InetSocketAddress(matcher.group(1), Integer.parseInt(matcher.group(2)));
		Map<String, Duration> delays = new LinkedHashMap<>();
		delays.put(NO_DELAY, Duration.ZERO);
		delays.put(ROUND_TRIP, Duration.ofNanos(ONE_WAY_MICROS * 1000));
		Map<String, Pass> passes = new LinkedHashMap<>();
		for (Map.Entry<String, Duration> pass : delays.entrySet()) {
			try (DelayRelay relay = new DelayRelay(target, pass.getValue());
					ConfigurableApplicationContext context = BenchmarkApplication.start(this.database,
							matcher.replaceFirst("//127.0.0.1:" + relay.port() + "/"),
							BenchmarkApplication.MAX_POOL_SIZE)) {
				Peers peers = new Peers(context.getBean(DataSource.class),
						context.getBean(PlatformTransactionManager.class));
				try {
					AnnotatedCalls annotated = context.getBean(AnnotatedCalls.class);
					HandWrittenCalls handWritten = context.getBean(HandWrittenCalls.class);
					CostBenchmark cost = new CostBenchmark(this.settings, annotated, handWritten,
							peers.lockRegistry(Duration.ofMillis(100)), peers.shedLock());
					Map<String, double[]> perCall = cost.perCall(this.settings.rounds(11));
					Map<String, PairedShare.Blocks> share = CostBenchmark.share(annotated, handWritten,
							this.settings.count(60), 40);
					passes.put(pass.getKey(), new Pass(perCall, share, relay.latenessMicros()));
				}
				finally {
					peers.stopRegistries();
				}
			}
		}
		return passes;
	}

	/** The variants of the table, in its order. */
	static final List<String> VARIANTS = List.of(CostBenchmark.FLOOR, CostBenchmark.CHECKED_FLOOR,
			CostBenchmark.FULLY_CHECKED_FLOOR, CostBenchmark.ANNOTATION, CostBenchmark.OPERATIONS,
			CostBenchmark.ARTICLE, CostBenchmark.INVOCATION, CostBenchmark.SHEDLOCK, CostBenchmark.REGISTRY);

	/**
	 * What one pass measured.
	 *
	 * @param perCall microseconds per call of each variant, per round
	 * @param share the library's share, measured in pairs
	 * @param latenessMicros how late, beyond its delay, the relay sent chunks: median and
	 * p99, in microseconds
	 */
	record Pass(Map<String, double[]> perCall, Map<String, PairedShare.Blocks> share, double[] latenessMicros) {

	}

}
