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
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReferenceArray;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.sample.Http;
import io.github.advisorylock.sample.SampleInstance;
import io.github.advisorylock.testsupport.FreezableRelay;
import io.github.advisorylock.testsupport.PgBouncer;
import io.github.advisorylock.testsupport.PostgresPair;
import io.github.advisorylock.testsupport.TestDatabase;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The system a chaos run puts under faults: a durable PostgreSQL primary with a streaming
 * standby ({@link PostgresPair}), which can be restarted or failed over, a PgBouncer in
 * transaction pooling mode in front of the primary (re-pointed at the new one after a
 * failover), and three sample-app JVMs, the last of them through PgBouncer, the others
 * with a multi-host JDBC URL ({@code targetServerType=primary}). Every process it starts
 * it also ends, in {@link #close()}, and the JVM's shutdown hooks end them should the run
 * die first.
 *
 * @author advisory-lock authors
 */
final class ChaosCluster implements AutoCloseable {

	/** How many sample-app JVMs run. */
	static final int INSTANCES = 3;

	/** The instance that reaches PostgreSQL through PgBouncer. */
	static final int THROUGH_PGBOUNCER = INSTANCES - 1;

	/**
	 * The {@code application_name} of the run's own sessions, which the fault injector
	 * never terminates.
	 */
	static final String OBSERVER = "chaos-observer";

	/**
	 * How the server is stopped for a restart, as {@code pg_ctl stop -m} names it
	 * (zonky's close).
	 */
	static final String STOP_MODE = "fast";

	/** How the job runs: often, for long enough that faults find a run in progress. */
	static final Duration JOB_PERIOD = Duration.ofSeconds(1);

	static final Duration JOB_WORK_TIME = Duration.ofMillis(1500);

	/**
	 * The job's heartbeat: PostgreSQL ends a silent lock session after three. Not
	 * shorter, so that a starved thread on two loaded cores does not lose a lock while
	 * nothing is wrong.
	 */
	static final Duration HEARTBEAT = Duration.ofMillis(500);

	/**
	 * The limited job's permits: with three instances, one is nearly always turned away
	 * while two run it, so that faults find both permits held.
	 */
	static final int LIMITED_PERMITS = 2;

	/** How often each instance tries the limited job. */
	static final Duration LIMITED_PERIOD = Duration.ofMillis(500);

	/** How long a run of the limited job works, holding its permit. */
	static final Duration LIMITED_WORK_TIME = Duration.ofMillis(1500);

	/** How many reports of a plan may run at once, across the instances. */
	static final int REPORT_PERMITS = 2;

	/**
	 * How long each report takes in the database: long enough that reports of a plan
	 * often meet, and the limit turns some away.
	 */
	static final Duration REPORT_WORK_TIME = Duration.ofMillis(200);

	/**
	 * How the fenced-batches job runs: each instance tries it this long after its last
	 * try.
	 */
	static final Duration FENCED_PERIOD = Duration.ofMillis(500);

	/**
	 * The database of the fenced job's archive, beside the lock's on the same servers.
	 */
	static final String ARCHIVE_DATABASE = "chaos_archive";

	/** How many batches a run of the fenced job writes. */
	static final int FENCED_BATCHES = 4;

	/**
	 * How long each batch waits between its insert and its commit: most of a run is spent
	 * inside fenced transactions, so that a freeze lands in one.
	 */
	static final Duration FENCED_PAUSE = Duration.ofMillis(200);

	private final Path logs;

	private final PostgresPair servers;

	/** The instances' URL, both servers' ports, for pgjdbc to find the primary. */
	private final String url;

	private final HikariDataSource observer;

	/** The fenced job's archive, with the credentials. */
	private final String archiveUrl;

	/**
	 * Connections to whichever server is the standby now, to check that no instance locks
	 * there.
	 */
	private final HikariDataSource standbyObserver;

	private final PgBouncer bouncer;

	private final AtomicReferenceArray<SampleInstance> instances = new AtomicReferenceArray<>(INSTANCES);

	/**
	 * One client per instance: each JDK HTTP client has a thread and a connection pool of
	 * its own.
	 */
	private final AtomicReferenceArray<Http> clients = new AtomicReferenceArray<>(INSTANCES);

	/**
	 * Every instance started, the killed ones included: their logs tell the locks they
	 * lost.
	 */
	private final List<SampleInstance> started = new CopyOnWriteArrayList<>();

	private final List<String> arguments;

	/**
	 * Each instance's relays to the servers (PgBouncer for the last), which a fault cuts:
	 * the same ones for every instance started in that place.
	 */
	private final Map<Integer, List<FreezableRelay>> cuts = new ConcurrentHashMap<>();

	private ChaosCluster(Path logs, PostgresPair servers, List<String> arguments) {
		this.logs = logs;
		this.servers = servers;
		this.arguments = arguments;
		this.url = servers.url("primary");
		String primary = "jdbc:postgresql://localhost:" + servers.primaryPort() + "/postgres";
		// TestDatabase, and so PgBouncer, use the first primary; it must not have started
		// another server.
		System.setProperty("advisory-lock.test.url", primary);
		if (!TestDatabase.get().url().equals(primary)) {
			throw new IllegalStateException("The test database was started before the chaos run's own server: run "
					+ "ChaosTests in a JVM of its own (-Dtest=ChaosTests or -Dgroups=chaos)");
		}
		this.observer = pool(this.url, 4, OBSERVER);
		this.archiveUrl = createArchive();
		this.standbyObserver = pool(servers.url("secondary"), 2, OBSERVER + "-standby");
		this.bouncer = PgBouncer.get();
	}

	private static HikariDataSource pool(String url, int size, String name) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername("postgres");
		config.setPassword("postgres");
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(0);
		config.setConnectionTimeout(5000);
		config.setPoolName(name);
		config.addDataSourceProperty("ApplicationName", OBSERVER);
		return new HikariDataSource(config);
	}

	/**
	 * Start the server, PgBouncer and the instances; return once every instance has
	 * started.
	 * @param logs the directory of the instances' logs
	 * @return the running cluster
	 * @throws IOException if a process cannot be started
	 */
	static ChaosCluster start(Path logs) throws IOException {
		PostgresPair servers = PostgresPair.start(PostgresPair.Replication.fromSystemProperty());
		List<String> arguments = List.of("--spring.datasource.hikari.maximum-pool-size=8",
				// A request finds no connection during a restart: fail it within the
				// fault, not 30 s later.
				"--spring.datasource.hikari.connection-timeout=5000",
				"--sample.jobs.expiry.period=" + JOB_PERIOD.toMillis() + "ms",
				"--sample.jobs.expiry.work-time=" + JOB_WORK_TIME.toMillis() + "ms",
				// Short, so that the job has requests to expire during the run.
				"--sample.jobs.expiry.max-age=20s",
				"--advisory-lock.invocation.heartbeat=" + HEARTBEAT.toMillis() + "ms",
				"--sample.jobs.fenced-batches.enabled=true",
				"--sample.jobs.fenced-batches.period=" + FENCED_PERIOD.toMillis() + "ms",
				"--sample.jobs.fenced-batches.batches=" + FENCED_BATCHES, "--sample.jobs.fenced-batches.batch-size=5",
				"--sample.jobs.fenced-batches.pause=" + FENCED_PAUSE.toMillis() + "ms",
				"--sample.jobs.partner-sync.enabled=true", "--sample.jobs.partner-sync.permits=" + LIMITED_PERMITS,
				"--sample.jobs.partner-sync.period=" + LIMITED_PERIOD.toMillis() + "ms",
				"--sample.jobs.partner-sync.work-time=" + LIMITED_WORK_TIME.toMillis() + "ms",
				"--sample.reports.permits-per-plan=" + REPORT_PERMITS,
				"--sample.reports.work-time=" + REPORT_WORK_TIME.toMillis() + "ms");
		ChaosCluster cluster;
		try {
			cluster = new ChaosCluster(logs, servers, arguments);
		}
		catch (RuntimeException ex) {
			servers.close();
			throw ex;
		}
		try {
			new ResourceDatabasePopulator(new ClassPathResource("schema.sql")).execute(cluster.observer);
			for (int i = 0; i < INSTANCES; i++) {
				cluster.launch(i);
			}
			for (int i = 0; i < INSTANCES; i++) {
				cluster.instance(i).awaitStarted();
			}
			return cluster;
		}
		catch (RuntimeException | IOException ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * Create the fenced job's archive: a database of its own on the servers, outside the
	 * lock's database, where no fence reaches; return its URL, which follows the primary,
	 * with the credentials.
	 */
	private String createArchive() {
		try (Connection connection = this.observer.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + ARCHIVE_DATABASE);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create the fenced job's archive", ex);
		}
		return this.url.replace("/postgres?", "/" + ARCHIVE_DATABASE + "?") + "&user=" + TestDatabase.get().username()
				+ "&password=" + TestDatabase.get().password();
	}

	/**
	 * Return the URL of the fenced job's archive, with the credentials.
	 * @return the URL
	 */
	String archiveUrl() {
		return this.archiveUrl;
	}

	private SampleInstance launch(int index) throws IOException {
		String name = "instance-" + index;
		Map<String, String> dataSource = new HashMap<>();
		if (index == THROUGH_PGBOUNCER) {
			// No options=-c…: PgBouncer refuses startup parameters it does not know.
			dataSource.put("spring.datasource.url", throughRelays(index, this.bouncer.url(PgBouncer.POOLED)));
			dataSource.put("spring.datasource.username", TestDatabase.get().username());
			dataSource.put("spring.datasource.password", TestDatabase.get().password());
		}
		else {
			dataSource.putAll(TestDatabase.get().springDataSourceProperties());
			// Both servers: pgjdbc connects to the one that is the primary now.
			dataSource.put("spring.datasource.url", throughRelays(index, this.url));
		}
		dataSource.put("spring.datasource.hikari.data-source-properties.ApplicationName", "chaos-" + name);
		dataSource.put("sample.jobs.fenced-batches.archive-url", this.archiveUrl);
		SampleInstance instance = SampleInstance.start(name, this.logs.resolve(name + "-" + this.started.size()),
				dataSource, this.arguments.toArray(String[]::new));
		this.started.add(instance);
		this.instances.set(index, instance);
		this.clients.set(index, instance.http());
		return instance;
	}

	/**
	 * Return a JDBC URL whose every host goes through a relay of the instance's own, so
	 * that a fault can cut that instance's network alone.
	 */
	private String throughRelays(int index, String url) throws IOException {
		String prefix = "jdbc:postgresql://";
		int slash = url.indexOf('/', prefix.length());
		String[] hosts = url.substring(prefix.length(), slash).split(",");
		List<FreezableRelay> relays = this.cuts.get(index);
		if (relays == null) {
			relays = new ArrayList<>();
			for (String host : hosts) {
				relays.add(new FreezableRelay(Integer.parseInt(host.substring(host.lastIndexOf(':') + 1))));
			}
			this.cuts.put(index, relays);
		}
		List<String> relayed = relays.stream().map((relay) -> "127.0.0.1:" + relay.port()).toList();
		return prefix + String.join(",", relayed) + url.substring(slash);
	}

	/**
	 * Cut an instance's network to the database: its relays forward nothing until
	 * {@link #restoreNetwork(int)}.
	 * @param index the instance
	 */
	void cutNetwork(int index) {
		this.cuts.get(index).forEach(FreezableRelay::freeze);
	}

	/**
	 * Let an instance's relays forward again.
	 * @param index the instance
	 */
	void restoreNetwork(int index) {
		this.cuts.get(index).forEach(FreezableRelay::thaw);
	}

	/**
	 * Return an instance as it runs now.
	 * @param index 0 to {@link #INSTANCES} - 1
	 * @return the instance
	 */
	SampleInstance instance(int index) {
		return this.instances.get(index);
	}

	/**
	 * Return a client of an instance as it runs now; a restarted instance listens on
	 * another port.
	 * @param index the instance
	 * @return the client
	 */
	Http http(int index) {
		return this.clients.get(index);
	}

	/**
	 * Return every instance started, killed ones included.
	 * @return the instances
	 */
	List<SampleInstance> everStarted() {
		return List.copyOf(this.started);
	}

	/**
	 * Return the index of an instance by its name.
	 * @param name such as {@code instance-1}
	 * @return the index
	 */
	static int index(String name) {
		return Integer.parseInt(name.substring("instance-".length()));
	}

	/**
	 * Kill an instance with SIGKILL and start a new one in its place; return once it has
	 * started.
	 * @param index the instance
	 * @throws IOException if it cannot be started
	 */
	void killAndRestart(int index) throws IOException {
		instance(index).kill();
		launch(index).awaitStarted();
	}

	/**
	 * Stop the server ({@value #STOP_MODE} mode: sessions are ended and open transactions
	 * rolled back) and start it again on the same data directory and port.
	 */
	void restartServer() {
		this.servers.restartPrimary();
	}

	/**
	 * Fail over to the standby, re-point PgBouncer at the new primary, and build a fresh
	 * standby (see {@link PostgresPair#failover(Runnable)}).
	 * @return what it took
	 */
	PostgresPair.Failover failover() {
		try {
			return this.servers.failover(() -> this.bouncer.retarget(this.servers.primaryPort()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not fail over", ex);
		}
	}

	/**
	 * Return the port of the primary now.
	 * @return the port
	 */
	int primaryPort() {
		return this.servers.primaryPort();
	}

	/**
	 * Return how the primary's commits wait for the standby.
	 * @return synchronous or asynchronous
	 */
	PostgresPair.Replication replication() {
		return this.servers.replication();
	}

	/**
	 * Return connections to whichever server is the standby now.
	 * @return the data source
	 */
	HikariDataSource standbyObserver() {
		return this.standbyObserver;
	}

	/**
	 * Stop PgBouncer and start it again on the same port.
	 */
	void restartPgBouncer() {
		this.bouncer.stop();
		this.bouncer.start();
	}

	/**
	 * Return the run's own connections to the primary, direct, which no fault but a
	 * restart or a failover ends.
	 * @return the data source
	 */
	DataSource observer() {
		return this.observer;
	}

	/**
	 * Return the versions and settings the report names.
	 * @return PostgreSQL's and PgBouncer's versions
	 */
	String versions() {
		String postgres = new JdbcTemplate(this.observer).queryForObject("SELECT version()", String.class);
		return postgres + "; PgBouncer " + this.bouncer.version();
	}

	/**
	 * Stop the instances that still run, gracefully and at once; the server and PgBouncer
	 * keep running for the checks.
	 */
	void stopInstances() {
		List<SampleInstance> running = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			if (instance(i) != null) {
				running.add(instance(i));
			}
		}
		SampleInstance.stopAll(running);
	}

	/**
	 * End every process the run started and delete the server's data; safe to call more
	 * than once, and after a failed start.
	 */
	@Override
	public void close() {
		try {
			stopInstances();
		}
		finally {
			try {
				this.cuts.values().forEach((relays) -> relays.forEach(ChaosCluster::closeQuietly));
				this.bouncer.stop();
				this.observer.close();
				this.standbyObserver.close();
			}
			finally {
				this.servers.close();
			}
		}
	}

	private static void closeQuietly(FreezableRelay relay) {
		try {
			relay.close();
		}
		catch (IOException ex) {
			// Its connections end with the run anyway.
		}
	}

}
