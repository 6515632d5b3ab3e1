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

package io.github.advisorylock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.FileSystemUtils;

/**
 * A real pgpool-II in streaming replication mode with load balancing on, in front of a
 * {@link PostgresPair}: node 0 the primary, node 1 the standby. It is started from a
 * generated configuration (the caller adds the settings under test, such as
 * {@code write_function_list}), listening on 127.0.0.1 at a free port, with its sockets,
 * pid file and log in a temporary directory; the caller closes it.
 *
 * <p>
 * The primary's weight is 0: whatever pgpool-II balances runs on the standby, every time,
 * so that a test knows where a statement went by what it balances.
 *
 * <p>
 * The binary is looked up as {@code advisory-lock.test.pgpool} (system property) or
 * {@code ADVISORY_LOCK_TEST_PGPOOL} (environment), then on the {@code PATH} and in
 * {@code /usr/sbin}. Without it, {@link #assumeInstalled()} skips the calling test with a
 * message naming the package to install, unless
 * {@code ADVISORY_LOCK_TEST_REQUIRE_PGPOOL=true}
 * ({@code advisory-lock.test.require-pgpool}) says the run must not skip them, as CI
 * does.
 *
 * @author advisory-lock authors
 */
public final class PgPool implements AutoCloseable {

	/** What to install where the binary is missing. */
	private static final String INSTALL_HINT = "install Debian's pgpool2 package (apt-get install pgpool2), or give "
			+ "the binary's path as -Dadvisory-lock.test.pgpool=…";

	/** The user of the pair's servers, which trust it. */
	private static final String USER = "postgres";

	private static final Pattern VERSION = Pattern.compile("pgpool-II version (\\d+\\.\\d+(?:\\.\\d+)?)");

	private static final Logger logger = LoggerFactory.getLogger(PgPool.class);

	private static final AtomicBoolean skipReported = new AtomicBoolean();

	private final Process process;

	private final Path directory;

	private final int port;

	private final String version;

	private PgPool(Process process, Path directory, int port, String version) {
		this.process = process;
		this.directory = directory;
		this.port = port;
		this.version = version;
	}

	/**
	 * Start a pgpool-II in front of the pair; skip the calling test (a JUnit assumption)
	 * when pgpool-II is not installed and not required.
	 * @param servers the primary and its standby
	 * @param settings what the test configures, written after the harness's own settings
	 * (values as pgpool.conf takes them, quoted where they are strings)
	 * @return the running pgpool-II, once it answers a query
	 */
	public static PgPool start(PostgresPair servers, Map<String, String> settings) {
		Path binary = assumeInstalled();
		String version = InstalledBinary.version(binary, VERSION, "pgpool-II");
		int port;
		Path directory;
		try {
			port = PostgresPair.freePort();
			directory = Files.createTempDirectory("advisory-lock-pgpool");
			Path config = directory.resolve("pgpool.conf");
			// No PCP: pcp_listen_addresses is empty, and so is its password file.
			Path pcp = Files.createFile(directory.resolve("pcp.conf"));
			Files.writeString(config, config(servers, port, directory, settings));
			Process process = new ProcessBuilder(binary.toString(), "-n", "-D", "-f", config.toString(), "-F",
					pcp.toString())
				.redirectErrorStream(true)
				.redirectOutput(directory.resolve("pgpool.log").toFile())
				.start();
			PgPool pool = new PgPool(process, directory, port, version);
			// Stopped as the JVM exits if the test does not close it; closing twice is
			// safe.
			Runtime.getRuntime().addShutdownHook(new Thread(pool::close, "pgpool-shutdown"));
			try {
				pool.awaitAnswering();
			}
			catch (IOException | RuntimeException ex) {
				pool.close();
				throw ex;
			}
			logger.info("pgpool-II {} on 127.0.0.1:{}, in front of the primary on port {} and the standby on {}, "
					+ "with {}", version, port, servers.primaryPort(), servers.standbyPort(), settings);
			return pool;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start pgpool-II " + binary, ex);
		}
	}

	/**
	 * Return the pgpool-II binary; skip the calling test (a JUnit assumption) when there
	 * is none and it is not required, saying what to install.
	 * @return its path
	 */
	public static Path assumeInstalled() {
		Path binary = binary().orElse(null);
		if (binary == null) {
			InstalledBinary.skipOrFail(
					"pgpool-II is not installed here, so the tests through it do not run: " + INSTALL_HINT,
					"ADVISORY_LOCK_TEST_REQUIRE_PGPOOL", "advisory-lock.test.require-pgpool", logger, skipReported);
		}
		return binary;
	}

	/**
	 * Return the pgpool-II binary, if one is installed.
	 * @return its path
	 */
	public static Optional<Path> binary() {
		return InstalledBinary.find("pgpool", "ADVISORY_LOCK_TEST_PGPOOL", "advisory-lock.test.pgpool");
	}

	private static String config(PostgresPair servers, int port, Path directory, Map<String, String> settings) {
		Map<String, String> config = new LinkedHashMap<>();
		config.put("backend_clustering_mode", "'streaming_replication'");
		config.put("listen_addresses", "'127.0.0.1'");
		config.put("port", Integer.toString(port));
		for (String name : List.of("socket_dir", "pcp_socket_dir", "wd_ipc_socket_dir", "logdir")) {
			config.put(name, "'" + directory + "'");
		}
		config.put("pid_file_name", "'" + directory.resolve("pgpool.pid") + "'");
		config.put("pcp_listen_addresses", "''");
		config.put("enable_pool_hba", "off");
		// A child serves one client at a time.
		config.put("num_init_children", "12");
		config.put("max_pool", "1");
		config.put("load_balance_mode", "on");
		// No delay or health checks, no failover: the pair does not change under a test.
		// pgpool-II still finds the primary at startup with pg_is_in_recovery(), as the
		// user it names.
		config.put("sr_check_period", "0");
		config.put("sr_check_user", "'" + USER + "'");
		config.put("health_check_period", "0");
		config.put("failover_on_backend_error", "off");
		int node = 0;
		for (int backend : List.of(servers.primaryPort(), servers.standbyPort())) {
			config.put("backend_hostname" + node, "'127.0.0.1'");
			config.put("backend_port" + node, Integer.toString(backend));
			// Every read it balances goes to the standby.
			config.put("backend_weight" + node, (node == 0) ? "0" : "1");
			node++;
		}
		config.putAll(settings);
		StringBuilder text = new StringBuilder("# Written by the advisory-lock tests\n");
		config.forEach((name, value) -> text.append(name).append(" = ").append(value).append('\n'));
		return text.toString();
	}

	/**
	 * Wait until pgpool-II shows both nodes up, the primary and the standby: it answers
	 * before it has found the standby, and meanwhile balances nothing.
	 */
	private void awaitAnswering() throws IOException {
		long deadline = System.nanoTime() + PgLocks.HANG_TIMEOUT.toNanos();
		String last = "no answer";
		while (System.nanoTime() - deadline < 0) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("pgpool-II exited with status " + this.process.exitValue()
						+ "; its log:\n" + Files.readString(this.directory.resolve("pgpool.log")));
			}
			// pgpool-II answers SHOW pool_nodes itself only in the simple query protocol.
			try (Connection connection = DriverManager.getConnection(url() + "?preferQueryMode=simple", USER, USER);
					Statement statement = connection.createStatement();
					ResultSet nodes = statement.executeQuery("SHOW pool_nodes")) {
				List<String> seen = new ArrayList<>();
				while (nodes.next()) {
					seen.add(nodes.getString("role") + " " + nodes.getString("status"));
				}
				if (seen.equals(List.of("primary up", "standby up"))) {
					return;
				}
				last = "nodes " + seen;
			}
			catch (SQLException notYet) {
				last = notYet.toString();
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while starting pgpool-II", ex);
			}
		}
		throw new IllegalStateException("pgpool-II on port " + this.port + " did not show a primary and a standby up "
				+ "within " + PgLocks.HANG_TIMEOUT + " (" + last + ")");
	}

	/**
	 * Return the version of the running pgpool-II.
	 * @return the version, such as {@code 4.3.5}
	 */
	public String version() {
		return this.version;
	}

	/**
	 * Return the JDBC URL of the {@code postgres} database through pgpool-II.
	 * @return the URL
	 */
	public String url() {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/postgres";
	}

	/**
	 * Return the user name and password of the servers behind.
	 * @return {@code postgres}, whom the pair's servers trust
	 */
	public String user() {
		return USER;
	}

	/**
	 * Create a pool of client connections through pgpool-II; the caller closes it.
	 * @param maximumPoolSize the most client connections (pgpool-II serves 12 at once)
	 * @return the pool
	 */
	public HikariDataSource newDataSource(int maximumPoolSize) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url());
		config.setUsername(USER);
		config.setPassword(USER);
		config.setMaximumPoolSize(maximumPoolSize);
		config.setMinimumIdle(0);
		config.setPoolName("pgpool-" + this.port);
		return new HikariDataSource(config);
	}

	/**
	 * Stop pgpool-II (SIGTERM, its smart shutdown: after its clients have left; then by
	 * force) and delete its directory.
	 */
	@Override
	public void close() {
		// Its children, read before it exits: once it is gone they are no longer its.
		List<ProcessHandle> children = this.process.descendants().toList();
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
		// A child left by a forced stop would keep its port and its server connections.
		children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
		FileSystemUtils.deleteRecursively(this.directory.toFile());
	}

}
