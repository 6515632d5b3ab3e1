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

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Scenario 12, leader election's failover: three instances, each a {@link LeaderProcess}
 * in a JVM of its own running Spring Integration's {@code LockRegistryLeaderInitiator} at
 * its defaults; the leader's process is killed ({@code SIGKILL}) or stopped
 * ({@code SIGSTOP}), and the figure is the time from the signal to the moment another
 * instance says it is granted the leadership ({@code OnGrantedEvent}), as this JVM reads
 * its line. Over {@code AdvisoryLockRegistry} (heartbeat {@value #HEARTBEAT_SECONDS} s)
 * and over {@code JdbcLockRegistry} (its default time to live). A killed leader is
 * replaced by a new instance; a stopped one is resumed, and waits until it is revoked.
 * <p>
 * Then two leaders at once: the leader's lock session is terminated
 * ({@code pg_terminate_backend}) while its process runs on, and the figure is the time
 * from the next leader's {@code OnGrantedEvent} to the old leader's
 * {@code OnRevokedEvent}, both as this JVM reads them, 0 if the old leader is revoked
 * first. Over {@code AdvisoryLockRegistry} with the heartbeat above and with its default;
 * not over {@code JdbcLockRegistry}, whose leadership is a row, not a session.
 */
final class LeaderFailoverBenchmark {

	static final long HEARTBEAT_SECONDS = 1;

	static final String ADVISORY = "`AdvisoryLockRegistry`, heartbeat " + HEARTBEAT_SECONDS + " s";

	static final String ADVISORY_DEFAULT = "`AdvisoryLockRegistry`, heartbeat "
			+ AdvisoryLockTemplate.DEFAULT_HEARTBEAT.toSeconds() + " s (its default)";

	static final String JDBC = "`JdbcLockRegistry`, its default time to live";

	static final String KILLED = "the leader's process is killed (SIGKILL)";

	static final String HUNG = "the leader's process hangs (SIGSTOP)";

	static final String TERMINATED = "the leader's session is terminated (`pg_terminate_backend`)";

	/**
	 * The advisory locks' heartbeat: a hung leader's lock ends three of them after its
	 * last.
	 */
	static final Duration HEARTBEAT = Duration.ofSeconds(HEARTBEAT_SECONDS);

	/**
	 * {@code JdbcLockRegistry}'s default time to live ({@code DefaultLockRepository}).
	 */
	static final Duration JDBC_TIME_TO_LIVE = Duration.ofSeconds(10);

	/**
	 * Samples of each way at scale 1: an advisory failover takes up to 3 s, a JDBC one 10
	 * s; two leaders at once last up to the initiator's half a second.
	 */
	static final int ADVISORY_SAMPLES = 5;

	static final int JDBC_SAMPLES = 3;

	private static final int INSTANCES = 3;

	private static final String ROLE = "failover";

	private final Settings settings;

	private final TestDatabase database;

	private final PgLocks pgLocks;

	LeaderFailoverBenchmark(Settings settings, TestDatabase database) {
		this.settings = settings;
		this.database = database;
		this.pgLocks = new PgLocks(database.dataSource());
	}

	/**
	 * Run the scenario alone and print its table, writing nothing: for work on it. The
	 * {@code INT_LOCK} table is created and dropped here.
	 * @param args none
	 */
	public static void main(String[] args) throws Exception {
		Benchmarks.leaderFailoverOnly();
	}

	/**
	 * Measure every registry and way the leader ends. {@code JdbcLockRegistry} needs the
	 * {@code INT_LOCK} table ({@link Peers#createTables()}).
	 * @return the failovers and the two leaders at once
	 */
	Result run() throws Exception {
		Map<String, Map<String, double[]>> failover = new LinkedHashMap<>();
		Map<String, Map<String, double[]>> twoLeaders = new LinkedHashMap<>();
		Map<String, double[]> advisory = registry("advisory", HEARTBEAT, List.of(KILLED, HUNG, TERMINATED),
				samples(ADVISORY_SAMPLES));
		twoLeaders.put(ADVISORY, Map.of(TERMINATED, advisory.remove(TERMINATED)));
		twoLeaders.put(ADVISORY_DEFAULT, registry("advisory", AdvisoryLockTemplate.DEFAULT_HEARTBEAT,
				List.of(TERMINATED), samples(ADVISORY_SAMPLES)));
		failover.put(ADVISORY, advisory);
		failover.put(JDBC, registry("jdbc", HEARTBEAT, List.of(KILLED, HUNG), samples(JDBC_SAMPLES)));
		return new Result(failover, twoLeaders);
	}

	/**
	 * Create the {@code INT_LOCK} table, run, and drop it: for {@link #main}.
	 */
	Result runWithTables() throws Exception {
		Peers peers = new Peers(this.database.dataSource(),
				new DataSourceTransactionManager(this.database.dataSource()));
		peers.createTables();
		try {
			return run();
		}
		finally {
			peers.dropTables();
		}
	}

	private int samples(int count) {
		return (int) Math.max(2, Math.round(count * Math.min(1, this.settings.scale())));
	}

	private Map<String, double[]> registry(String registry, Duration heartbeat, List<String> ways, int samples)
			throws Exception {
		String namespace = "leader-failover-" + UUID.randomUUID();
		long key = AdvisoryLockKeys.of(namespace, ROLE);
		List<LeaderInstance> instances = new ArrayList<>();
		int started = 0;
		try {
			Map<String, double[]> results = new LinkedHashMap<>();
			for (String way : ways) {
				double[] millis = new double[samples];
				for (int i = 0; i < samples; i++) {
					while (instances.size() < INSTANCES) {
						LeaderInstance instance = LeaderInstance.start(registry + "-" + started++, this.database,
								registry, namespace, ROLE, heartbeat);
						instances.add(instance);
					}
					for (LeaderInstance instance : instances) {
						instance.await(LeaderProcess.STARTED, 0);
					}
					LeaderInstance leader = LeaderInstance.awaitLeader(instances);
					List<LeaderInstance> followers = instances.stream()
						.filter((instance) -> instance != leader)
						.toList();
					int[] marks = followers.stream().mapToInt(LeaderInstance::mark).toArray();
					int leaderMark = leader.mark();
					if (way.equals(TERMINATED)) {
						// The server ends the leader's session; its process runs on, and
						// is revoked once its initiator finds the lock lost.
						this.pgLocks.terminateHolderOf(key);
						long granted = LeaderInstance.awaitGranted(followers, marks).nanos();
						long revoked = leader.await(LeaderProcess.REVOKED, leaderMark);
						millis[i] = Math.max(0, revoked - granted) / 1e6;
						continue;
					}
					long signalled = System.nanoTime();
					leader.signal(way.equals(KILLED) ? "KILL" : "STOP");
					millis[i] = (LeaderInstance.awaitGranted(followers, marks).nanos() - signalled) / 1e6;
					if (way.equals(KILLED)) {
						leader.close();
						instances.remove(leader);
					}
					else {
						// Resumed, it is revoked, and follows from then on.
						leader.signal("CONT");
						leader.await(LeaderProcess.REVOKED, leaderMark);
					}
				}
				results.put(way, millis);
			}
			return results;
		}
		finally {
			for (LeaderInstance instance : instances) {
				instance.close();
			}
		}
	}

	/**
	 * What the scenario measured.
	 *
	 * @param failover milliseconds from the signal to the next leader's grant, per
	 * sample, by registry, then by way
	 * @param twoLeaders milliseconds from the next leader's grant to the old leader's
	 * revocation (0 if it is revoked first), per sample, by registry, then by way
	 */
	record Result(Map<String, Map<String, double[]>> failover, Map<String, Map<String, double[]>> twoLeaders) {

	}

}
