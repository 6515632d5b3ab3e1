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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Runs every scenario of the benchmarks, prints the tables, and writes them with the
 * environment to {@code docs/benchmarks.md} and the scaling chart to
 * {@code docs/benchmarks-scaling.svg}.
 *
 * <p>
 * Run it with {@code ./mvnw -pl benchmarks -am verify -DskipTests -Pbenchmarks}; the
 * database is the one the tests use ({@link TestDatabase}): embedded PostgreSQL 18 unless
 * {@code ADVISORY_LOCK_TEST_URL} names a server.
 */
public final class Benchmarks {

	static final String COMMAND = "./mvnw -pl benchmarks -am verify -DskipTests -Pbenchmarks";

	static final String CHART = "benchmarks-scaling.svg";

	/**
	 * What the library may add to a hand-written lock with the same isolation and
	 * recovery checks and round trips.
	 */
	static final double SHARE_GOAL = 1.03;

	private static final int SHARE_BLOCKS = 100;

	private static final int SHARE_PAIRS = 200;

	/**
	 * What the library may add on R2DBC to the same statement written by hand inside
	 * {@code TransactionalOperator}.
	 */
	static final double REACTIVE_SHARE_GOAL = 1.05;

	/** Blocks and pairs per block of the fenced-write measure. */
	private static final int FENCED_BLOCKS = 40;

	private static final int FENCED_PAIRS = 100;

	/** What the JDBC share is measured against, for its tables and headline. */
	private static final String JDBC_BASELINE = "hand-written with the same isolation and recovery checks and round trips";

	/** What the R2DBC share is measured against, for its tables and headline. */
	private static final String R2DBC_BASELINE = "the same statement hand-written inside `TransactionalOperator`";

	private final Settings settings;

	private final StringBuilder markdown = new StringBuilder();

	private final List<String> headline = new ArrayList<>();

	private Benchmarks(Settings settings) {
		this.settings = settings;
	}

	/**
	 * Run the benchmarks.
	 * @param args the directory to write the report to (default {@code docs})
	 */
	public static void main(String[] args) throws Exception {
		Path docs = Path.of((args.length > 0) ? args[0] : "docs");
		Settings settings = Settings.fromSystemProperties();
		long start = System.nanoTime();
		TestDatabase database = database(settings);
		String description = (System.getenv("ADVISORY_LOCK_TEST_URL") != null
				|| System.getProperty("advisory-lock.test.url") != null) ? "the server at " + database.url()
						: "embedded (zonky binaries) on this machine";
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(database)) {
			new Benchmarks(settings).run(context, database, description, docs);
		}
		System.out.printf(Locale.ROOT, "%nBenchmarks took %ds.%n", (System.nanoTime() - start) / 1_000_000_000);
		// The embedded server stops in a shutdown hook.
		System.exit(0);
	}

	/**
	 * Run the reactive scenario alone and print its section, writing nothing: for work on
	 * it ({@link ReactiveBenchmark#main}).
	 */
	static void reactiveOnly() throws Exception {
		Settings settings = Settings.fromSystemProperties();
		TestDatabase database = database(settings);
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(database)) {
			Benchmarks benchmarks = new Benchmarks(settings);
			String section = benchmarks
				.reactiveSection(new ReactiveBenchmark(settings, context.getBean(AnnotatedCalls.class),
						context.getBean(HandWrittenCalls.class), database.dataSource())
					.run());
			benchmarks.headline.forEach((line) -> System.out.println("- " + line));
			System.out.println();
			System.out.println(section);
		}
		System.exit(0);
	}

	/**
	 * Run the fenced-write measure alone and print its table, writing nothing: for work
	 * on it ({@link CostBenchmark#main}).
	 */
	static void fencedOnly() throws Exception {
		Settings settings = Settings.fromSystemProperties();
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(database(settings))) {
			System.out.println(fencedTable(CostBenchmark.fenced(context.getBean(HandWrittenCalls.class),
					settings.count(FENCED_BLOCKS), FENCED_PAIRS)));
		}
		System.exit(0);
	}

	/**
	 * Run the fencing token's measure alone and print its table, writing nothing
	 * ({@link FencingTokenBenchmark#main}).
	 */
	static void tokenOnly() throws Exception {
		Settings settings = Settings.fromSystemProperties();
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(database(settings))) {
			System.out.println(tokenTable(CostBenchmark.token(context.getBean(HandWrittenCalls.class),
					settings.count(FENCED_BLOCKS), FENCED_PAIRS)));
		}
		System.exit(0);
	}

	/**
	 * Run the library's share alone and print its table, writing nothing: for a change of
	 * the lock's path, measured before and after ({@link ShareBenchmark#main}).
	 */
	static void shareOnly() throws Exception {
		Settings settings = Settings.fromSystemProperties();
		Benchmarks benchmarks = new Benchmarks(settings);
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(database(settings))) {
			System.out
				.println(benchmarks.share(
						CostBenchmark.share(context.getBean(AnnotatedCalls.class),
								context.getBean(HandWrittenCalls.class), settings.count(SHARE_BLOCKS), SHARE_PAIRS),
						"on loopback", JDBC_BASELINE, SHARE_GOAL));
		}
		System.exit(0);
	}

	/**
	 * Run the leader election's failover alone and print its table, writing nothing: for
	 * work on it ({@link LeaderFailoverBenchmark#main}).
	 */
	static void leaderFailoverOnly() throws Exception {
		Settings settings = Settings.fromSystemProperties();
		Benchmarks benchmarks = new Benchmarks(settings);
		LeaderFailoverBenchmark.Result result = new LeaderFailoverBenchmark(settings, database(settings))
			.runWithTables();
		String section = benchmarks.leaderFailoverSection(result.failover());
		benchmarks.headline.forEach((line) -> System.out.println("- " + line));
		System.out.println();
		System.out.println(section);
		System.out.println(twoLeadersSection(result.twoLeaders()));
		System.exit(0);
	}

	private static TestDatabase database(Settings settings) {
		// Read by TestDatabase when it starts the embedded server; a server given by URL
		// keeps its own settings.
		System.setProperty(TestDatabase.DURABLE_PROPERTY, Boolean.toString(settings.durable()));
		System.setProperty(TestDatabase.MAX_CONNECTIONS_PROPERTY, Integer.toString(CrowdBenchmark.MAX_CONNECTIONS));
		return TestDatabase.get();
	}

	private void run(ConfigurableApplicationContext context, TestDatabase database, String description, Path docs)
			throws Exception {
		DataSource dataSource = context.getBean(DataSource.class);
		AnnotatedCalls annotated = context.getBean(AnnotatedCalls.class);
		HandWrittenCalls handWritten = context.getBean(HandWrittenCalls.class);
		Peers peers = new Peers(dataSource, context.getBean(PlatformTransactionManager.class));
		peers.createTables();
		try {
			Table environment = EnvironmentInfo.describe(dataSource, description);
			System.out.println(environment.markdown());

			CostBenchmark cost = new CostBenchmark(this.settings, annotated, handWritten,
					peers.lockRegistry(Duration.ofMillis(100)), peers.shedLock());
			Map<String, double[]> perCall = cost.perCall();
			Map<String, PairedShare.Blocks> share = CostBenchmark.share(annotated, handWritten,
					this.settings.count(SHARE_BLOCKS), SHARE_PAIRS);
			PairedShare.Blocks fenced = CostBenchmark.fenced(handWritten, this.settings.count(FENCED_BLOCKS),
					FENCED_PAIRS);
			CostBenchmark.TokenCost token = CostBenchmark.token(handWritten, this.settings.count(FENCED_BLOCKS),
					FENCED_PAIRS);
			Map<String, double[]> perKeys = cost.perKeys();
			Map<String, HandOffBenchmark.Percentiles> handOff = new HandOffBenchmark(this.settings, annotated,
					handWritten, database.dataSource(), peers)
				.run();
			ReactiveBenchmark.Result reactive = new ReactiveBenchmark(this.settings, annotated, handWritten,
					database.dataSource())
				.run();

			BenchmarkApplication.resizePool(context, CapacityBenchmark.T);
			CapacityBenchmark capacity = new CapacityBenchmark(this.settings, annotated);
			double[] burstWaits = capacity.burstAverageWait();
			List<ClosedLoop.Window> hot = capacity.continuous(true);
			List<ClosedLoop.Window> distinct = capacity.continuous(false);
			BenchmarkApplication.resizePool(context, BenchmarkApplication.MAX_POOL_SIZE);

			Pgbench pgbench = Pgbench.find(database);
			Map<Integer, ScalingBenchmark.Point> scaling = new ScalingBenchmark(this.settings, context, annotated,
					handWritten, pgbench)
				.run();
			Map<String, double[]> takeover = new TakeoverBenchmark(this.settings,
					context.getBean(AdvisoryLockOperations.class), database)
				.run();
			LeaderFailoverBenchmark.Result failover = new LeaderFailoverBenchmark(this.settings, database).run();
			Map<String, NetworkBenchmark.Pass> network = new NetworkBenchmark(this.settings, database).run();
			CrowdBenchmark crowd = new CrowdBenchmark(this.settings, database);
			Map<Integer, List<CrowdBenchmark.Round>> crowds = crowd.run();
			LimitBenchmark.Result limits;
			try (LimitBenchmark limit = new LimitBenchmark(this.settings, database)) {
				limits = limit.run();
			}

			String costSection = costSection(perCall, share);
			String keysSection = keysSection(perKeys);
			String handOffSection = handOffSection(handOff, perCall);
			String capacitySection = capacitySection(burstWaits, hot, distinct);
			String scalingSection = scalingSection(scaling, pgbench);
			String invocationSection = invocationSection(perCall, takeover, fenced, token);
			String networkSection = networkSection(perCall, network);
			String crowdSection = crowdSection(crowds, crowd.poolFillMillis(),
					handOff.get(HandOffBenchmark.ANNOTATION));
			String reactiveSection = reactiveSection(reactive);
			String failoverSection = leaderFailoverSection(failover.failover());
			String twoLeadersSection = twoLeadersSection(failover.twoLeaders());
			String limitsSection = limitsSection(limits);
			write(docs, environment, costSection, keysSection, handOffSection, capacitySection, scalingSection,
					invocationSection, networkSection, crowdSection, reactiveSection, failoverSection,
					twoLeadersSection, limitsSection, chart(scaling, perKeys));
		}
		finally {
			peers.dropTables();
		}
	}

	private String costSection(Map<String, double[]> perCall, Map<String, PairedShare.Blocks> pairedShare) {
		double[] floor = perCall.get(CostBenchmark.FLOOR);
		Table table = new Table("transaction", "round trips", "µs per transaction", "ratio to the floor");
		for (Map.Entry<String, double[]> variant : perCall.entrySet()) {
			Summary micros = Summary.of(variant.getValue(), Summary.Spread.IQR);
			Summary ratio = Summary.of(Rounds.ratios(variant.getValue(), floor), Summary.Spread.IQR);
			table.row(variant.getKey(), roundTrips(variant.getKey()), micros.format(0), ratio.format(2));
		}
		Summary annotation = Summary.of(Rounds.ratios(perCall.get(CostBenchmark.ANNOTATION), floor),
				Summary.Spread.IQR);
		Summary operations = Summary.of(Rounds.ratios(perCall.get(CostBenchmark.OPERATIONS), floor),
				Summary.Spread.IQR);
		Summary checked = Summary.of(Rounds.ratios(perCall.get(CostBenchmark.CHECKED_FLOOR), floor),
				Summary.Spread.IQR);
		Summary recovery = Summary.of(
				Rounds.ratios(perCall.get(CostBenchmark.FULLY_CHECKED_FLOOR), perCall.get(CostBenchmark.CHECKED_FLOOR)),
				Summary.Spread.IQR);
		Summary article = Summary.of(Rounds.ratios(perCall.get(CostBenchmark.ARTICLE), floor), Summary.Spread.IQR);
		String share = share(pairedShare, "on loopback", JDBC_BASELINE, SHARE_GOAL);
		this.headline.add(String.format(Locale.ROOT,
				"Against the bare floor: `@AdvisoryLocked` %s, "
						+ "`AdvisoryLockOperations.lock` %s, the floor with the isolation check %s (the recovery check "
						+ "then adds %s); the article's three statements %s.",
				annotation.format(2), operations.format(2), checked.format(2), recovery.format(2), article.format(2)));
		return table.markdown() + "\n" + share;
	}

	/**
	 * Tabulate the library's share, the annotation's and the programmatic API's cost over
	 * the hand-written lock with the same isolation and recovery checks and round trips,
	 * measured in pairs, with 95% intervals over the blocks, and put it in the headline.
	 * @param where where it was measured, for the headline
	 * @param baseline what it was measured against, for the headline
	 * @param goal the most it may be
	 */
	private String share(Map<String, PairedShare.Blocks> blocks, String where, String baseline, double goal) {
		Table share = new Table("the library's share, " + where,
				"ratio to hand-written with the same check, median [95% CI]", "µs added, median [95% CI]",
				"goal ≤ " + goal);
		blocks.forEach((variant, measured) -> {
			Summary ratio = Summary.of(measured.ratios(), Summary.Spread.CI95);
			Summary added = Summary.of(measured.microsAdded(), Summary.Spread.CI95);
			String verdict = verdict(ratio, goal);
			share.row(variant, ratio.bracketed(3), added.bracketed(1), verdict);
			this.headline.add(String.format(Locale.ROOT,
					"The library's share %s, %s ÷ %s: **%s** (95%% CI), %s µs a call; goal ≤ %s: %s.", where, variant,
					baseline, ratio.bracketed(3), added.bracketed(1), goal, verdict));
		});
		return share.markdown();
	}

	private String reactiveSection(ReactiveBenchmark.Result reactive) {
		Map<String, double[]> perCall = reactive.perCall();
		double[] floor = perCall.get(ReactiveBenchmark.FLOOR);
		Table cost = new Table("transaction", "µs per transaction", "ratio to the R2DBC floor");
		perCall.forEach((variant, micros) -> cost.row(variant, Summary.of(micros, Summary.Spread.IQR).format(0),
				Summary.of(Rounds.ratios(micros, floor), Summary.Spread.IQR).format(2)));
		Map<String, PairedShare.Blocks> library = new LinkedHashMap<>(reactive.share());
		PairedShare.Blocks transactional = library.remove(ReactiveBenchmark.TRANSACTIONAL_FLOOR);
		String share = share(library, "on loopback", R2DBC_BASELINE, REACTIVE_SHARE_GOAL) + fmt(
				"%nOf the annotation's share, Spring's `@Transactional` on a `Mono` method accounts for %s "
						+ "(95%% CI), %s µs a call: the floor's statement in such a method, without the lock "
						+ "annotation, ÷ the floor, also measured in pairs.%n",
				Summary.of(transactional.ratios(), Summary.Spread.CI95).bracketed(3),
				Summary.of(transactional.microsAdded(), Summary.Spread.CI95).bracketed(1));
		Table handOff = new Table("waiter", "p50, ms", "p99, ms");
		reactive.handOff()
			.forEach((waiter, percentiles) -> handOff.row(waiter,
					Summary.of(percentiles.p50(), Summary.Spread.RANGE).format(),
					Summary.of(percentiles.p99(), Summary.Spread.RANGE).format()));
		this.headline.add(fmt(
				"Hand-off to a waiting subscriber on R2DBC, p50: %s ms with `@AdvisoryLocked` on a "
						+ "`Mono` method, beside %s ms with it on JDBC in the same rounds.",
				Summary.of(reactive.handOff().get(ReactiveBenchmark.HAND_OFF_ANNOTATION).p50(), Summary.Spread.RANGE)
					.format(),
				Summary.of(reactive.handOff().get(ReactiveBenchmark.HAND_OFF_JDBC).p50(), Summary.Spread.RANGE)
					.format()));
		return cost.markdown() + "\n" + share + "\n" + handOff.markdown();
	}

	private String networkSection(Map<String, double[]> loopback, Map<String, NetworkBenchmark.Pass> passes) {
		Map<String, double[]> direct = passes.get(NetworkBenchmark.NO_DELAY).perCall();
		Map<String, double[]> slow = passes.get(NetworkBenchmark.ROUND_TRIP).perCall();
		double[] noDelay = passes.get(NetworkBenchmark.NO_DELAY).latenessMicros();
		double[] late = passes.get(NetworkBenchmark.ROUND_TRIP).latenessMicros();
		// What a round trip really added: the delay each way, plus how much later than
		// the relay without delay the relay with it sent each chunk (its writer wakes a
		// little after the due time).
		double roundTripMicros = 2 * (NetworkBenchmark.ONE_WAY_MICROS + late[0] - noDelay[0]);
		Table table = new Table("call", "loopback, µs", "relay, no delay, µs", "relay, 0.5 ms round trip, µs",
				"round trips, from the delay", "ratio to the floor at 0.5 ms");
		StringBuilder costs = new StringBuilder();
		for (String variant : NetworkBenchmark.VARIANTS) {
			Summary zero = Summary.of(direct.get(variant), Summary.Spread.IQR);
			Summary delayed = Summary.of(slow.get(variant), Summary.Spread.IQR);
			double roundTrips = (delayed.median() - zero.median()) / roundTripMicros;
			table.row(variant, Summary.of(loopback.get(variant), Summary.Spread.IQR).format(0), zero.format(0),
					delayed.format(0), fmt("%.1f", roundTrips),
					Summary.of(Rounds.ratios(slow.get(variant), slow.get(CostBenchmark.FLOOR)), Summary.Spread.IQR)
						.format(2));
			if (variant.equals(CostBenchmark.FLOOR) || variant.equals(CostBenchmark.ANNOTATION)
					|| variant.equals(CostBenchmark.SHEDLOCK) || variant.equals(CostBenchmark.REGISTRY)) {
				costs.append(costs.isEmpty() ? "" : "; ")
					.append(fmt("%s %.0f µs (%.1f round trips)", shortName(variant), delayed.median(), roundTrips));
			}
		}
		this.headline.add("At a 0.5 ms round trip, through the relay: " + costs + ".");
		String share = share(passes.get(NetworkBenchmark.ROUND_TRIP).share(), "at a 0.5 ms round trip", JDBC_BASELINE,
				SHARE_GOAL);
		return table.markdown() + "\n" + share + fmt("%nThe relay sent each chunk %.0f µs (median; p99 %.0f µs) after "
				+ "it was due with no delay, and %.0f µs (p99 %.0f µs) after its due time with %d µs each way: a "
				+ "round trip through it added %.0f µs rather than the %d asked, and the round trips above are "
				+ "counted in those.%n", noDelay[0], noDelay[1], late[0], late[1], NetworkBenchmark.ONE_WAY_MICROS,
				roundTripMicros, 2 * NetworkBenchmark.ONE_WAY_MICROS);
	}

	private String crowdSection(Map<Integer, List<CrowdBenchmark.Round>> crowds, Map<Integer, Double> poolFillMillis,
			HandOffBenchmark.Percentiles one) {
		// One waiter's hand-off (scenario 4) predicts a crowd's throughput: one call
		// through the lock per hand-off.
		double oneHandOff = Summary.of(one.p50(), Summary.Spread.RANGE).median();
		double model = 1000 / oneHandOff;
		Table table = new Table("callers on one key", "queued in, ms", "hand-off p50, ms", "hand-off p99, ms",
				"the JVM's GC in the pass, ms", "calls/s", "model: 1000 / one waiter's hand-off", "measured / model");
		StringBuilder headline = new StringBuilder();
		crowds.forEach((crowd, rounds) -> {
			double[] queued = rounds.stream().mapToDouble(CrowdBenchmark.Round::queueMillis).toArray();
			double[] p50 = rounds.stream()
				.mapToDouble((round) -> Summary.percentileOf(round.handOffsMillis(), 50))
				.toArray();
			double[] p99 = rounds.stream()
				.mapToDouble((round) -> Summary.percentileOf(round.handOffsMillis(), 99))
				.toArray();
			Summary throughput = Summary.of(rounds.stream().mapToDouble(CrowdBenchmark.Round::throughput).toArray(),
					Summary.Spread.RANGE);
			double[] gc = rounds.stream().mapToDouble(CrowdBenchmark.Round::gcMillis).toArray();
			table.row(crowd, Summary.of(queued, Summary.Spread.RANGE).format(0),
					Summary.of(p50, Summary.Spread.RANGE).format(), Summary.of(p99, Summary.Spread.RANGE).format(),
					Summary.of(gc, Summary.Spread.RANGE).format(0), throughput.format(0), fmt("%.0f/s", model),
					fmt("%.2f", throughput.median() / model));
			headline.append(headline.isEmpty() ? "" : "; ")
				.append(fmt("%d callers: hand-off p50 %s ms, p99 %s ms, " + "%.0f calls/s (%.2f × the model)", crowd,
						Summary.of(p50, Summary.Spread.RANGE).format(), Summary.of(p99, Summary.Spread.RANGE).format(),
						throughput.median(), throughput.median() / model));
		});
		this.headline.add("A crowd on one key, " + headline + ".");
		StringBuilder pools = new StringBuilder();
		poolFillMillis.forEach((crowd, millis) -> pools.append(pools.isEmpty() ? "" : ", ")
			.append(fmt("%d connections in %.1f s", crowd, millis / 1000)));
		return table.markdown() + fmt("%nBefore the rounds, the pool opened its connections: %s.%n", pools);
	}

	private static String shortName(String variant) {
		return switch (variant) {
			case CostBenchmark.FLOOR -> "the hand-written floor";
			case CostBenchmark.ANNOTATION -> "`@AdvisoryLocked`";
			case CostBenchmark.SHEDLOCK -> "ShedLock lock + unlock";
			case CostBenchmark.REGISTRY -> "`JdbcLockRegistry` lock + unlock";
			default -> variant;
		};
	}

	/**
	 * Say whether a ratio meets a share goal: only when its whole 95% interval lies on
	 * one side of it.
	 */
	private static String verdict(Summary ratio, double goal) {
		if (ratio.high() <= goal) {
			return "met";
		}
		if (ratio.low() > goal) {
			return "NOT met";
		}
		return "undecided: the interval spans the goal";
	}

	private static String roundTrips(String variant) {
		return switch (variant) {
			case CostBenchmark.FLOOR, CostBenchmark.CHECKED_FLOOR, CostBenchmark.FULLY_CHECKED_FLOOR,
					CostBenchmark.ANNOTATION, CostBenchmark.OPERATIONS ->
				"2 (lock, commit)";
			case CostBenchmark.ARTICLE -> "4 (3 statements, commit)";
			case CostBenchmark.INVOCATION -> "2 (open and lock, rollback), and the pool's check of an idle connection";
			default -> "not counted";
		};
	}

	private String keysSection(Map<String, double[]> perKeys) {
		Table table = new Table("keys per call", "one hand-written statement, µs", "`@AdvisoryLocked`, µs",
				"ratio to one statement", "one statement per key, µs");
		for (int keys : CostBenchmark.KEY_COUNTS) {
			double[] statement = perKeys.get(CostBenchmark.keysVariant("statement", keys));
			double[] annotation = perKeys.get(CostBenchmark.keysVariant("annotation", keys));
			double[] loop = perKeys.get(CostBenchmark.keysVariant("loop", keys));
			table.row(keys, Summary.of(statement, Summary.Spread.IQR).format(0),
					Summary.of(annotation, Summary.Spread.IQR).format(0),
					Summary.of(Rounds.ratios(annotation, statement), Summary.Spread.IQR).format(2),
					Summary.of(loop, Summary.Spread.IQR).format(0));
		}
		Summary ratio64 = Summary.of(Rounds.ratios(perKeys.get(CostBenchmark.keysVariant("annotation", 64)),
				perKeys.get(CostBenchmark.keysVariant("statement", 64))), Summary.Spread.IQR);
		Summary loop64 = Summary.of(Rounds.ratios(perKeys.get(CostBenchmark.keysVariant("loop", 64)),
				perKeys.get(CostBenchmark.keysVariant("annotation", 64))), Summary.Spread.IQR);
		this.headline.add(String.format(Locale.ROOT, "64 keys in one call: %s × one hand-written statement; a "
				+ "statement per key costs %s × the annotation.", ratio64.format(2), loop64.format(1)));
		return table.markdown();
	}

	private String handOffSection(Map<String, HandOffBenchmark.Percentiles> handOff, Map<String, double[]> perCall) {
		Table table = new Table("waiter", "p50, ms", "p99, ms");
		for (Map.Entry<String, HandOffBenchmark.Percentiles> entry : handOff.entrySet()) {
			table.row(entry.getKey(), Summary.of(entry.getValue().p50(), Summary.Spread.RANGE).format(),
					Summary.of(entry.getValue().p99(), Summary.Spread.RANGE).format());
		}
		Summary shedLock = Summary.of(perCall.get(CostBenchmark.SHEDLOCK), Summary.Spread.IQR);
		table.row("ShedLock `JdbcTemplateLockProvider`", "does not wait: a busy lock is skipped",
				"uncontended lock + unlock " + String.format(Locale.ROOT, "%.2f", shedLock.median() / 1000) + " ms");
		Summary annotation = Summary.of(handOff.get(HandOffBenchmark.ANNOTATION).p50(), Summary.Spread.RANGE);
		Summary registry = Summary.of(handOff.get(HandOffBenchmark.REGISTRY_DEFAULT).p50(), Summary.Spread.RANGE);
		this.headline.add(String.format(Locale.ROOT,
				"Hand-off to a blocked waiter, p50: %s ms with "
						+ "`@AdvisoryLocked`, %s ms with `JdbcLockRegistry` at its default poll.",
				annotation.format(), registry.format()));
		return table.markdown();
	}

	private String capacitySection(double[] burstWaits, List<ClosedLoop.Window> hot, List<ClosedLoop.Window> distinct) {
		Table table = new Table("t = 10 callers, u = 50 ms", "model", "measured", "measured / model");
		Summary burst = Summary.of(burstWaits, Summary.Spread.RANGE);
		Summary hotThroughput = Summary.of(ClosedLoop.throughputs(hot), Summary.Spread.RANGE);
		Summary hotWait = Summary.of(meanExtras(hot), Summary.Spread.RANGE);
		Summary distinctThroughput = Summary.of(ClosedLoop.throughputs(distinct), Summary.Spread.RANGE);
		Summary distinctWait = Summary.of(meanExtras(distinct), Summary.Spread.RANGE);
		double modelWait = CapacityBenchmark.modelAverageWait();
		double hotModel = CapacityBenchmark.modelThroughput(1);
		double distinctModel = CapacityBenchmark.modelThroughput(CapacityBenchmark.T);
		table.row("one hot key, callers released together: average wait", fmt("%.0f ms", modelWait),
				burst.format(0) + " ms", fmt("%.2f", burst.median() / modelWait));
		table.row("one hot key, continuous: throughput", fmt("%.0f/s", hotModel), hotThroughput.format(1) + "/s",
				fmt("%.2f", hotThroughput.median() / hotModel));
		table.row("one hot key, continuous: average wait", "(burst formula only)", hotWait.format(0) + " ms",
				fmt("%.2f × u × (t − 1)", hotWait.median() / (CapacityBenchmark.U * (CapacityBenchmark.T - 1))));
		table.row("ten distinct keys, continuous: throughput", fmt("%.0f/s", distinctModel),
				distinctThroughput.format(0) + "/s", fmt("%.2f", distinctThroughput.median() / distinctModel));
		table.row("ten distinct keys, continuous: average wait", "0 ms", distinctWait.format(2) + " ms", "");
		this.headline.add(String.format(Locale.ROOT,
				"Capacity model (t = 10, u = 50 ms): burst average wait %s ms "
						+ "(model %.0f), hot-key throughput %s/s (model %.0f), ten keys %s/s (model %.0f).",
				burst.format(0), modelWait, hotThroughput.format(1), hotModel, distinctThroughput.format(0),
				distinctModel));
		double worst = Math.max(Math.abs(burst.median() / modelWait - 1),
				Math.max(Math.abs(hotThroughput.median() / hotModel - 1),
						Math.abs(distinctThroughput.median() / distinctModel - 1)));
		return table.markdown()
				+ fmt("%nEvery modelled figure was measured within %.0f %% of the model.%n", Math.ceil(worst * 100));
	}

	private String invocationSection(Map<String, double[]> perCall, Map<String, double[]> takeover,
			PairedShare.Blocks fenced, CostBenchmark.TokenCost token) {
		Table cost = new Table("uncontended, no work", "µs per call", "ratio to the invocation scope");
		double[] invocation = perCall.get(CostBenchmark.INVOCATION);
		for (String variant : List.of(CostBenchmark.INVOCATION, CostBenchmark.SHEDLOCK, CostBenchmark.REGISTRY)) {
			cost.row(variant, Summary.of(perCall.get(variant), Summary.Spread.IQR).format(0),
					Summary.of(Rounds.ratios(perCall.get(variant), invocation), Summary.Spread.IQR).format(2));
		}
		Table next = new Table("the waiting instance's work starts after", "ms, median (min–max)", "samples");
		takeover
			.forEach((way, millis) -> next.row(way, Summary.of(millis, Summary.Spread.RANGE).format(1), millis.length));
		next.row("ShedLock, a holder that died or hung", "`lockAtMostFor`, as configured", "");
		Summary shedLock = Summary.of(Rounds.ratios(perCall.get(CostBenchmark.SHEDLOCK), invocation),
				Summary.Spread.IQR);
		this.headline.add(String.format(Locale.ROOT, "Invocation scope, uncontended lock + unlock: %s µs; ShedLock "
				+ "%s× that. The next instance starts %.1f ms after a holder returns, %.0f ms after it is killed, "
				+ "%.1f s after it hangs (heartbeat %d s).", Summary.of(invocation, Summary.Spread.IQR).format(0),
				shedLock.format(2), Summary.of(takeover.get(TakeoverBenchmark.RETURNS), Summary.Spread.RANGE).median(),
				Summary.of(takeover.get(TakeoverBenchmark.KILLED), Summary.Spread.RANGE).median(),
				Summary.of(takeover.get(TakeoverBenchmark.HUNG), Summary.Spread.RANGE).median() / 1000,
				TakeoverBenchmark.HUNG_HEARTBEAT.toSeconds()));
		Summary fencedRatio = Summary.of(fenced.ratios(), Summary.Spread.CI95);
		this.headline.add(String.format(Locale.ROOT,
				"A fenced write ÷ a plain transaction-scoped lock, inside a job: "
						+ "**%s** (95%% CI), %s µs a transaction, in the same one round trip.",
				fencedRatio.bracketed(3), Summary.of(fenced.microsAdded(), Summary.Spread.CI95).bracketed(1)));
		return cost.markdown() + "\n" + next.markdown() + "\n" + fencedTable(fenced) + "\n" + tokenTable(token);
	}

	/**
	 * Tabulate what a fenced write adds to a plain transaction-scoped lock, measured in
	 * pairs inside one invocation-scoped call, with 95% intervals over the blocks.
	 */
	private static String fencedTable(PairedShare.Blocks fenced) {
		Table table = new Table("inside an invocation-scoped call, one transaction",
				"ratio to " + CostBenchmark.PLAIN + ", median [95% CI]", "µs added, median [95% CI]");
		table.row(CostBenchmark.FENCED, Summary.of(fenced.ratios(), Summary.Spread.CI95).bracketed(3),
				Summary.of(fenced.microsAdded(), Summary.Spread.CI95).bracketed(1));
		return table.markdown();
	}

	/**
	 * Tabulate what asking a fencing token adds to an invocation-scoped call, measured in
	 * pairs, with 95% intervals over the blocks, and what the server spends per call.
	 */
	private static String tokenTable(CostBenchmark.TokenCost token) {
		Table table = new Table("an invocation-scoped call, no work",
				"ratio to the call without a token, median [95% CI]", "µs added, median [95% CI]", "xids per call",
				"WAL bytes per call");
		table.row(CostBenchmark.TOKEN, Summary.of(token.paired().ratios(), Summary.Spread.CI95).bracketed(3),
				Summary.of(token.paired().microsAdded(), Summary.Spread.CI95).bracketed(1),
				fmt("%.2f", token.xidsWithToken()), fmt("%.0f", token.walBytesWithToken()));
		table.row(CostBenchmark.INVOCATION, "1", "0", fmt("%.2f", token.xidsWithout()),
				fmt("%.0f", token.walBytesWithout()));
		return table.markdown();
	}

	private String leaderFailoverSection(Map<String, Map<String, double[]>> failover) {
		Table table = new Table("registry", "the next leader is granted after", "ms, median (min–max)", "samples");
		failover.forEach((registry, ways) -> ways.forEach((way, millis) -> table.row(registry, way,
				Summary.of(millis, Summary.Spread.RANGE).format(0), millis.length)));
		Map<String, double[]> advisory = failover.get(LeaderFailoverBenchmark.ADVISORY);
		Map<String, double[]> jdbc = failover.get(LeaderFailoverBenchmark.JDBC);
		this.headline.add(fmt(
				"Leader election (`LockRegistryLeaderInitiator`), the next leader is granted: "
						+ "with `AdvisoryLockRegistry` %.0f ms after the leader is killed, %.1f s after it hangs "
						+ "(heartbeat %d s); with `JdbcLockRegistry` %.1f s and %.1f s (time to live %d s).",
				median(advisory.get(LeaderFailoverBenchmark.KILLED)),
				median(advisory.get(LeaderFailoverBenchmark.HUNG)) / 1000, LeaderFailoverBenchmark.HEARTBEAT_SECONDS,
				median(jdbc.get(LeaderFailoverBenchmark.KILLED)) / 1000,
				median(jdbc.get(LeaderFailoverBenchmark.HUNG)) / 1000,
				LeaderFailoverBenchmark.JDBC_TIME_TO_LIVE.toSeconds()));
		return table.markdown();
	}

	/**
	 * Tabulate how long two instances lead at once after the leader's session ends: 0
	 * where the old leader is revoked before the next is granted.
	 */
	private static String twoLeadersSection(Map<String, Map<String, double[]>> twoLeaders) {
		Table table = new Table("registry", "two leaders at once after", "ms, median (min–max)", "samples");
		twoLeaders.forEach((registry, ways) -> ways.forEach((way, millis) -> table.row(registry, way,
				Summary.of(millis, Summary.Spread.RANGE).format(0), millis.length)));
		return table.markdown();
	}

	private static double median(double[] values) {
		return Summary.of(values, Summary.Spread.RANGE).median();
	}

	/**
	 * Run the scaling scenario alone and print its section, writing nothing
	 * ({@link ScalingBenchmark#main}).
	 */
	static void scalingOnly() throws Exception {
		Settings settings = Settings.fromSystemProperties();
		TestDatabase database = database(settings);
		try (ConfigurableApplicationContext context = BenchmarkApplication.start(database)) {
			Benchmarks benchmarks = new Benchmarks(settings);
			Pgbench pgbench = Pgbench.find(database);
			String section = benchmarks.scalingSection(new ScalingBenchmark(settings, context,
					context.getBean(AnnotatedCalls.class), context.getBean(HandWrittenCalls.class), pgbench)
				.run(), pgbench);
			benchmarks.headline.forEach((line) -> System.out.println("- " + line));
			System.out.println();
			System.out.println(section);
		}
		System.exit(0);
	}

	/**
	 * Tabulate the scaling scenario: for a key per call and for one hot key, each way's
	 * calls per second with the annotation's ratios to the hand-written lock and to
	 * pgbench, taken within each round, then each way's p99.
	 */
	private String scalingSection(Map<Integer, ScalingBenchmark.Point> scaling, Pgbench pgbench) throws Exception {
		StringBuilder section = new StringBuilder();
		List<String> ways = new ArrayList<>(scaling.values().iterator().next().distinct().keySet());
		double[] lowest = { Double.MAX_VALUE, Double.MAX_VALUE };
		for (boolean hot : new boolean[] { false, true }) {
			String keys = hot ? "one hot key" : "a random key per call";
			List<String> throughputHeader = new ArrayList<>(List.of("callers (= pool size)"));
			ways.forEach((way) -> throughputHeader.add(way + ", calls/s"));
			throughputHeader.add("`@AdvisoryLocked` ÷ hand-written");
			if (pgbench != null) {
				throughputHeader.add("`@AdvisoryLocked` ÷ pgbench");
			}
			Table throughput = new Table(throughputHeader.toArray(String[]::new));
			List<String> latencyHeader = new ArrayList<>(List.of("callers (= pool size)"));
			ways.forEach((way) -> latencyHeader.add(way + ", p99 ms"));
			Table latency = new Table(latencyHeader.toArray(String[]::new));
			int mode = hot ? 1 : 0;
			scaling.forEach((callers, point) -> {
				Map<String, List<ClosedLoop.Window>> windows = hot ? point.hot() : point.distinct();
				List<Object> row = new ArrayList<>(List.of(callers));
				List<Object> p99Row = new ArrayList<>(List.of(callers));
				for (String way : ways) {
					row.add(Summary.of(ClosedLoop.throughputs(windows.get(way)), Summary.Spread.RANGE).format(0));
					p99Row.add(Summary.of(ClosedLoop.p99s(windows.get(way)), Summary.Spread.RANGE).format());
				}
				double[] annotation = ClosedLoop.throughputs(windows.get(ScalingBenchmark.ANNOTATION));
				Summary toHandWritten = Summary.of(
						Rounds.ratios(annotation, ClosedLoop.throughputs(windows.get(ScalingBenchmark.HAND_WRITTEN))),
						Summary.Spread.RANGE);
				lowest[mode] = Math.min(lowest[mode], toHandWritten.median());
				row.add(toHandWritten.format(2));
				if (pgbench != null) {
					row.add(Summary
						.of(Rounds.ratios(annotation, ClosedLoop.throughputs(windows.get(ScalingBenchmark.PGBENCH))),
								Summary.Spread.RANGE)
						.format(2));
				}
				throughput.row(row.toArray());
				latency.row(p99Row.toArray());
			});
			section.append("Calls per second, ").append(keys).append(":\n\n").append(throughput.markdown());
			section.append("\np99 latency, ").append(keys).append(":\n\n").append(latency.markdown()).append("\n");
		}
		section.append((pgbench != null) ? "pgbench is " + pgbench.version() + ".\n"
				: "pgbench is not installed here, so its columns are left out (Debian's `postgresql-client` has it).\n");
		this.headline.add(
				fmt("Scaling from 1 to 32 callers, `@AdvisoryLocked` ÷ the hand-written lock's calls/s, lowest median: "
						+ "%.2f with a key per call, %.2f on one hot key.", lowest[0], lowest[1]));
		return section.toString();
	}

	private static String chart(Map<Integer, ScalingBenchmark.Point> scaling, Map<String, double[]> perKeys) {
		List<Chart.Point> distinctThroughput = new ArrayList<>();
		List<Chart.Point> hotThroughput = new ArrayList<>();
		List<Chart.Point> distinctP99 = new ArrayList<>();
		List<Chart.Point> hotP99 = new ArrayList<>();
		List<Chart.Point> pgbenchThroughput = new ArrayList<>();
		scaling.forEach((callers, point) -> {
			List<ClosedLoop.Window> distinct = point.distinct().get(ScalingBenchmark.ANNOTATION);
			List<ClosedLoop.Window> hot = point.hot().get(ScalingBenchmark.ANNOTATION);
			distinctThroughput
				.add(Chart.Point.of(callers, Summary.of(ClosedLoop.throughputs(distinct), Summary.Spread.RANGE)));
			hotThroughput.add(Chart.Point.of(callers, Summary.of(ClosedLoop.throughputs(hot), Summary.Spread.RANGE)));
			distinctP99.add(Chart.Point.of(callers, Summary.of(ClosedLoop.p99s(distinct), Summary.Spread.RANGE)));
			hotP99.add(Chart.Point.of(callers, Summary.of(ClosedLoop.p99s(hot), Summary.Spread.RANGE)));
			List<ClosedLoop.Window> pgbench = point.distinct().get(ScalingBenchmark.PGBENCH);
			if (pgbench != null) {
				pgbenchThroughput
					.add(Chart.Point.of(callers, Summary.of(ClosedLoop.throughputs(pgbench), Summary.Spread.RANGE)));
			}
		});
		List<Chart.Point> statement = new ArrayList<>();
		List<Chart.Point> annotation = new ArrayList<>();
		List<Chart.Point> loop = new ArrayList<>();
		for (int keys : CostBenchmark.KEY_COUNTS) {
			statement.add(Chart.Point.of(keys,
					Summary.of(perKeys.get(CostBenchmark.keysVariant("statement", keys)), Summary.Spread.IQR)));
			annotation.add(Chart.Point.of(keys,
					Summary.of(perKeys.get(CostBenchmark.keysVariant("annotation", keys)), Summary.Spread.IQR)));
			loop.add(Chart.Point.of(keys,
					Summary.of(perKeys.get(CostBenchmark.keysVariant("loop", keys)), Summary.Spread.IQR)));
		}
		String blue = "#1f77b4";
		String orange = "#d62728";
		String grey = "#7f7f7f";
		List<Chart.Series> throughputSeries = new ArrayList<>(
				List.of(new Chart.Series("a random key per call", blue, distinctThroughput),
						new Chart.Series("one hot key", orange, hotThroughput)));
		if (!pgbenchThroughput.isEmpty()) {
			throughputSeries.add(new Chart.Series("pgbench, a random key per call", grey, pgbenchThroughput));
		}
		return Chart.svg("@AdvisoryLocked on PostgreSQL: medians of rounds, with their spread", List.of(
				new Chart.Panel("Throughput (bars: min–max)", "callers (pool = callers)", "transactions per second",
						false, throughputSeries),
				new Chart.Panel("p99 latency (bars: min–max)", "callers (pool = callers)", "milliseconds (log)", true,
						List.of(new Chart.Series("a random key per call", blue, distinctP99),
								new Chart.Series("one hot key", orange, hotP99))),
				new Chart.Panel("One caller, n keys (bars: p25–p75)", "keys per call", "microseconds (log)", true,
						List.of(new Chart.Series("@AdvisoryLocked", blue, annotation),
								new Chart.Series("one hand-written statement", grey, statement),
								new Chart.Series("one statement per key", orange, loop)))));
	}

	private static double[] meanExtras(List<ClosedLoop.Window> windows) {
		return windows.stream().mapToDouble(ClosedLoop.Window::extraMean).toArray();
	}

	private static String fmt(String pattern, Object... arguments) {
		return String.format(Locale.ROOT, pattern, arguments);
	}

	private String limitsSection(LimitBenchmark.Result limits) {
		LimitBenchmark.Row library = limits.row(LimitBenchmark.LIBRARY, 40);
		LimitBenchmark.Row handWritten = limits.row(LimitBenchmark.HAND_WRITTEN, 40);
		this.headline.add(fmt(
				"A concurrency limit of %d permits with 40 callers: %.2f of the model's throughput, hand-off p50 "
						+ "%.2f ms, each waiter sending %.1f statements a second, against %.0f for a hand-written "
						+ "try-sleep-retry, whose longest wait is %.0f ms to the limit's %.0f ms.",
				LimitBenchmark.PERMITS, library.throughput() / library.model(), library.handOffP50(),
				library.statementsPerWaiter(), handWritten.statementsPerWaiter(), handWritten.longestWait(),
				library.longestWait()));
		return limits.uncontendedTable() + "\n" + limits.contendedTable()
				+ ((limits.skipped() != null) ? "\n" + limits.skipped() + "\n" : "");
	}

	private void write(Path docs, Table environment, String cost, String keys, String handOff, String capacity,
			String scaling, String invocation, String network, String crowd, String reactive, String failover,
			String twoLeaders, String limits, String svg) throws IOException {
		String document = Report.render(this.settings, environment.markdown(), this.headline, cost, keys, handOff,
				capacity, scaling, invocation, network, crowd, reactive, failover, twoLeaders, limits);
		System.out.println();
		System.out.println(document);
		Files.createDirectories(docs);
		Files.writeString(docs.resolve("benchmarks.md"), document);
		Files.writeString(docs.resolve(CHART), svg);
		System.out.println("Wrote " + docs.resolve("benchmarks.md") + " and " + docs.resolve(CHART));
	}

}
