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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReferenceArray;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.sample.Http;
import io.github.advisorylock.sample.SampleInstance;
import io.github.advisorylock.test.PgBouncer;
import io.github.advisorylock.test.TestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.util.FileSystemUtils;

/**
 * The system a chaos run puts under faults: one durable PostgreSQL that can be stopped
 * and started again on the same data directory and port, a PgBouncer in transaction
 * pooling mode in front of it, and three sample-app JVMs, the last of them through
 * PgBouncer. Every process it starts it also ends, in {@link #close()}, and the JVM's
 * shutdown hooks end them should the run die first.
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

	private final Path logs;

	private final Path data;

	private final int port;

	private volatile EmbeddedPostgres server;

	private final HikariDataSource observer;

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

	private ChaosCluster(Path logs, Path data, EmbeddedPostgres server, List<String> arguments) {
		this.logs = logs;
		this.data = data;
		this.server = server;
		this.port = server.getPort();
		this.arguments = arguments;
		String url = "jdbc:postgresql://localhost:" + this.port + "/postgres";
		// TestDatabase, and so PgBouncer and SampleInstance, use this server; it must not
		// have started another.
		System.setProperty("advisory-lock.test.url", url);
		if (!TestDatabase.get().url().equals(url)) {
			throw new IllegalStateException("The test database was started before the chaos run's own server: run "
					+ "ChaosTests in a JVM of its own (-Dtest=ChaosTests or -Dgroups=chaos)");
		}
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername("postgres");
		config.setPassword("postgres");
		config.setMaximumPoolSize(4);
		config.setMinimumIdle(0);
		config.setPoolName("chaos-observer");
		config.addDataSourceProperty("ApplicationName", OBSERVER);
		this.observer = new HikariDataSource(config);
		this.bouncer = PgBouncer.get();
	}

	/**
	 * Start the server, PgBouncer and the instances; return once every instance has
	 * started.
	 * @param logs the directory of the instances' logs
	 * @return the running cluster
	 * @throws IOException if a process cannot be started
	 */
	static ChaosCluster start(Path logs) throws IOException {
		Path data = Files.createTempDirectory("advisory-lock-chaos");
		EmbeddedPostgres server = startServer(data, 0);
		List<String> arguments = List.of("--spring.datasource.hikari.maximum-pool-size=8",
				// A request finds no connection during a restart: fail it within the
				// fault, not 30 s later.
				"--spring.datasource.hikari.connection-timeout=5000",
				"--sample.jobs.expiry.period=" + JOB_PERIOD.toMillis() + "ms",
				"--sample.jobs.expiry.work-time=" + JOB_WORK_TIME.toMillis() + "ms",
				// Short, so that the job has requests to expire during the run.
				"--sample.jobs.expiry.max-age=20s",
				"--advisory-lock.invocation.heartbeat=" + HEARTBEAT.toMillis() + "ms");
		ChaosCluster cluster = new ChaosCluster(logs, data, server, arguments);
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

	private static EmbeddedPostgres startServer(Path data, int port) throws IOException {
		// Durable, as a production server: a server that drops acknowledged commits on a
		// stop would blame the
		// library for its own losses.
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
			.setDataDirectory(data)
			.setCleanDataDirectory(false)
			.setPGStartupWait(Duration.ofSeconds(60))
			.setServerConfig("fsync", "on")
			.setServerConfig("synchronous_commit", "on")
			.setServerConfig("full_page_writes", "on")
			.setServerConfig("max_connections", "200");
		if (port != 0) {
			builder.setPort(port);
		}
		return builder.start();
	}

	private SampleInstance launch(int index) throws IOException {
		String name = "instance-" + index;
		Map<String, String> dataSource = new HashMap<>();
		if (index == THROUGH_PGBOUNCER) {
			// No options=-c…: PgBouncer refuses startup parameters it does not know.
			dataSource.put("spring.datasource.url", this.bouncer.url(PgBouncer.POOLED));
			dataSource.put("spring.datasource.username", TestDatabase.get().username());
			dataSource.put("spring.datasource.password", TestDatabase.get().password());
		}
		else {
			dataSource.putAll(TestDatabase.get().springDataSourceProperties());
		}
		dataSource.put("spring.datasource.hikari.data-source-properties.ApplicationName", "chaos-" + name);
		SampleInstance instance = SampleInstance.start(name, this.logs.resolve(name + "-" + this.started.size()),
				dataSource, this.arguments.toArray(String[]::new));
		this.started.add(instance);
		this.instances.set(index, instance);
		this.clients.set(index, instance.http());
		return instance;
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
		try {
			this.server.close();
			this.server = startServer(this.data, this.port);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not restart PostgreSQL", ex);
		}
	}

	/**
	 * Stop PgBouncer and start it again on the same port.
	 */
	void restartPgBouncer() {
		this.bouncer.stop();
		this.bouncer.start();
	}

	/**
	 * Return the run's own connections to the server, direct, which no fault but a
	 * restart ends.
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
				this.bouncer.stop();
				this.observer.close();
			}
			finally {
				try {
					this.server.close();
				}
				catch (IOException ex) {
					throw new UncheckedIOException("PostgreSQL did not stop", ex);
				}
				finally {
					FileSystemUtils.deleteRecursively(this.data.toFile());
				}
			}
		}
	}

}
