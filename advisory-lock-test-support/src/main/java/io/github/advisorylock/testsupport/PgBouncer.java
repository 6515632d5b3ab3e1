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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PgBouncer in {@code pool_mode = transaction} in front of the
 * {@link TestDatabase}, started once per JVM from a generated configuration, listening on
 * 127.0.0.1 at a free port.
 *
 * <p>
 * It serves two databases, both the test database behind:
 * <ul>
 * <li>{@value #POOLED}: a pool of up to 20 server connections, the way an application
 * sees PgBouncer;</li>
 * <li>{@value #ONE_SERVER_CONNECTION}: a pool of a single server connection, so that
 * every client is known to share one PostgreSQL session (to show what session-level state
 * does under transaction pooling).</li>
 * </ul>
 *
 * <p>
 * The binary is looked up as {@code advisory-lock.test.pgbouncer} (system property) or
 * {@code ADVISORY_LOCK_TEST_PGBOUNCER} (environment), then on the {@code PATH} and in
 * {@code /usr/sbin}. Without it, {@link #get()} skips the calling test with a message
 * naming the package to install, unless {@code ADVISORY_LOCK_TEST_REQUIRE_PGBOUNCER=true}
 * ({@code advisory-lock.test.require-pgbouncer}) says the run must not skip them, as CI
 * does. PgBouncer refuses to run as root: as root it is started inside a user namespace
 * ({@code unshare -U}), where it runs as the unprivileged overflow user, like the
 * embedded PostgreSQL.
 */
public final class PgBouncer {

	/** The database of the shared pool. */
	public static final String POOLED = "postgres";

	/** The database whose clients all share one server connection. */
	public static final String ONE_SERVER_CONNECTION = "one_server_connection";

	/** What to install where the binary is missing. */
	public static final String INSTALL_HINT = "install Debian's pgbouncer package (apt-get install pgbouncer), or "
			+ "give the binary's path as -Dadvisory-lock.test.pgbouncer=…";

	/**
	 * PgBouncer 1.21 tracks prepared statements itself (max_prepared_statements); older
	 * ones need them off.
	 */
	private static final int[] PREPARED_STATEMENTS_SUPPORTED = { 1, 21 };

	private static final Logger logger = LoggerFactory.getLogger(PgBouncer.class);

	private static final Pattern VERSION = Pattern.compile("PgBouncer (\\d+\\.\\d+(?:\\.\\d+)?)");

	private static final Pattern URL = Pattern.compile("jdbc:postgresql://([^:/?]+)(?::(\\d+))?/([^?]*)(?:\\?.*)?");

	private static volatile PgBouncer instance;

	/**
	 * Why PgBouncer did not start, so that later tests fail at once rather than each
	 * trying again.
	 */
	private static volatile RuntimeException startFailure;

	private static final AtomicBoolean skipReported = new AtomicBoolean();

	/** Replaced by {@link #start()} after a {@link #stop()}. */
	private volatile Process process;

	private final List<String> command;

	private final Path log;

	private final int port;

	private final String version;

	private final boolean tracksPreparedStatements;

	private PgBouncer(Process process, List<String> command, Path log, int port, String version,
			boolean tracksPreparedStatements) {
		this.process = process;
		this.command = command;
		this.log = log;
		this.port = port;
		this.version = version;
		this.tracksPreparedStatements = tracksPreparedStatements;
	}

	/**
	 * Return the PgBouncer of this JVM's tests, starting it at the first call; skip the
	 * calling test (a JUnit assumption) when PgBouncer is not installed and not required.
	 * @return the running PgBouncer
	 */
	public static PgBouncer get() {
		PgBouncer bouncer = instance;
		if (bouncer == null) {
			synchronized (PgBouncer.class) {
				bouncer = instance;
				if (bouncer == null) {
					Path binary = binary().orElse(null);
					if (binary == null) {
						InstalledBinary.skipOrFail(
								"PgBouncer is not installed here, so the tests through it do not run: " + INSTALL_HINT,
								"ADVISORY_LOCK_TEST_REQUIRE_PGBOUNCER", "advisory-lock.test.require-pgbouncer", logger,
								skipReported);
					}
					if (startFailure != null) {
						throw new IllegalStateException("PgBouncer did not start earlier in this run", startFailure);
					}
					try {
						bouncer = start(binary, TestDatabase.get());
					}
					catch (RuntimeException ex) {
						startFailure = ex;
						throw ex;
					}
					logger.info("PgBouncer {} in transaction pooling mode on 127.0.0.1:{}, in front of the test "
							+ "database", bouncer.version, bouncer.port);
					instance = bouncer;
				}
			}
		}
		return bouncer;
	}

	/**
	 * Return the PgBouncer binary, if one is installed.
	 * @return its path
	 */
	public static Optional<Path> binary() {
		return InstalledBinary.find("pgbouncer", "ADVISORY_LOCK_TEST_PGBOUNCER", "advisory-lock.test.pgbouncer");
	}

	private static PgBouncer start(Path binary, TestDatabase database) {
		String version = InstalledBinary.version(binary, VERSION, "PgBouncer");
		boolean tracksPreparedStatements = atLeast(version, PREPARED_STATEMENTS_SUPPORTED);
		Matcher url = URL.matcher(database.url());
		if (!url.matches()) {
			throw new IllegalStateException("Cannot put PgBouncer in front of " + database.url()
					+ ": expected jdbc:postgresql://host[:port]/database");
		}
		String host = url.group(1);
		String serverPort = (url.group(2) != null) ? url.group(2) : "5432";
		String dbname = url.group(3).isEmpty() ? "postgres" : url.group(3);
		int port = freePort();
		try {
			Path directory = Files.createTempDirectory("advisory-lock-pgbouncer");
			// Readable by the unprivileged user PgBouncer runs as; it writes nothing
			// there.
			Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
			Path users = directory.resolve("userlist.txt");
			Path config = directory.resolve("pgbouncer.ini");
			Path log = directory.resolve("pgbouncer.log");
			Files.writeString(users, quoted(database.username()) + " " + quoted(database.password()) + "\n");
			Files.writeString(config, config(host, serverPort, dbname, port, users, tracksPreparedStatements));
			for (Path file : List.of(users, config)) {
				Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
			}
			List<String> command = new ArrayList<>();
			if (TestDatabase.runsAsRoot()) {
				command.addAll(List.of("unshare", "-U"));
			}
			command.addAll(List.of(binary.toString(), config.toString()));
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			PgBouncer bouncer = new PgBouncer(process, List.copyOf(command), log, port, version,
					tracksPreparedStatements);
			// The current process, which a stop and start may have replaced.
			Runtime.getRuntime().addShutdownHook(new Thread(() -> bouncer.process.destroy(), "pgbouncer-shutdown"));
			bouncer.awaitListening(log);
			return bouncer;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start PgBouncer " + binary, ex);
		}
	}

	private static String config(String host, String serverPort, String dbname, int port, Path users,
			boolean tracksPreparedStatements) {
		String server = "host=" + host + " port=" + serverPort + " dbname=" + dbname;
		StringBuilder config = new StringBuilder();
		config.append("[databases]\n");
		// The same statement_timeout as direct connections: a hung test fails instead of
		// hanging CI.
		String connectQuery = " connect_query='SET statement_timeout = " + TestDatabase.STATEMENT_TIMEOUT_MILLIS
				+ "'\n";
		config.append(POOLED + " = " + server + " pool_size=20" + connectQuery);
		config.append(ONE_SERVER_CONNECTION + " = " + server + " pool_size=1" + connectQuery);
		config.append("\n[pgbouncer]\n");
		config.append("listen_addr = 127.0.0.1\n");
		config.append("listen_port = " + port + "\n");
		config.append("unix_socket_dir =\n");
		config.append("pool_mode = transaction\n");
		config.append("auth_type = scram-sha-256\n");
		config.append("auth_file = " + users + "\n");
		config.append("max_client_conn = 200\n");
		// After a failed login to the server (it is restarting), try again within a
		// second, not after the default
		// 15 s: tests that restart the server measure its recovery, not this wait.
		config.append("server_login_retry = 1\n");
		// The R2DBC driver sends extra_float_digits at login, which PgBouncer refuses
		// unless told to ignore it (docs/pgbouncer.md says the same to applications).
		config.append("ignore_startup_parameters = extra_float_digits\n");
		if (tracksPreparedStatements) {
			config.append("max_prepared_statements = 200\n");
		}
		return config.toString();
	}

	private static String quoted(String value) {
		return "\"" + value.replace("\"", "\"\"") + "\"";
	}

	static boolean atLeast(String version, int[] minimum) {
		String[] parts = version.split("\\.");
		for (int i = 0; i < minimum.length; i++) {
			int part = (i < parts.length) ? Integer.parseInt(parts[i]) : 0;
			if (part != minimum[i]) {
				return part > minimum[i];
			}
		}
		return true;
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not find a free port for PgBouncer", ex);
		}
	}

	/**
	 * Stop PgBouncer with SIGTERM, its immediate shutdown: every client and server
	 * connection is closed at once, as when it crashes or an operator restarts it. Return
	 * once it has exited. For fault injection: {@link #start()} starts it again, on the
	 * same port.
	 */
	public synchronized void stop() {
		Process running = this.process;
		running.destroy();
		try {
			if (!running.waitFor(30, TimeUnit.SECONDS)) {
				running.destroyForcibly();
				running.waitFor(30, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			running.destroyForcibly();
		}
	}

	/**
	 * Start a {@link #stop() stopped} PgBouncer again, from the same configuration and on
	 * the same port; return once it listens. Does nothing if it runs.
	 */
	public synchronized void start() {
		if (this.process.isAlive()) {
			return;
		}
		try {
			this.process = new ProcessBuilder(this.command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()))
				.start();
			awaitListening(this.log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start PgBouncer again: " + this.command, ex);
		}
	}

	/**
	 * Point PgBouncer at another server on the same host, as an HA manager does after a
	 * failover (a hook that rewrites the configuration, or a moved virtual IP): stop it,
	 * write the new port into its configuration, and start it again on its own port.
	 * @param serverPort the new server's port
	 */
	public synchronized void retarget(int serverPort) {
		Path config = Path.of(this.command.get(this.command.size() - 1));
		stop();
		try {
			Files.writeString(config,
					Files.readString(config).replaceAll("(?m)^(\\w+ = host=\\S+ port=)\\d+", "$1" + serverPort));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not rewrite " + config, ex);
		}
		start();
	}

	private void awaitListening(Path log) throws IOException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("PgBouncer exited with status " + this.process.exitValue()
						+ (TestDatabase.runsAsRoot() ? " (started with unshare -U, as this build runs as root: where "
								+ "the kernel offers no user namespace, build as an unprivileged user)" : "")
						+ "; its log:\n" + Files.readString(log));
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 1000);
				return;
			}
			catch (IOException notYet) {
				sleep();
			}
		}
		this.process.destroy();
		throw new IllegalStateException(
				"PgBouncer did not listen on port " + this.port + " within 30s; its log:\n" + Files.readString(log));
	}

	private static void sleep() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting PgBouncer", ex);
		}
	}

	/**
	 * Return the version of the running PgBouncer.
	 * @return the version, such as {@code 1.18.0}
	 */
	public String version() {
		return this.version;
	}

	/**
	 * Return the JDBC URL of one of its databases, with what pgjdbc needs behind
	 * transaction pooling: before PgBouncer 1.21, {@code prepareThreshold=0}, since a
	 * named server-side prepared statement lives in one server session and the next
	 * transaction may run on another.
	 * @param database {@link #POOLED} or {@link #ONE_SERVER_CONNECTION}
	 * @return the URL
	 */
	public String url(String database) {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/" + database
				+ (this.tracksPreparedStatements ? "" : "?prepareThreshold=0");
	}

	/**
	 * Create a pool of client connections to PgBouncer; the caller closes it.
	 * @param database {@link #POOLED} or {@link #ONE_SERVER_CONNECTION}
	 * @param maximumPoolSize the most client connections
	 * @return the pool
	 */
	public HikariDataSource newDataSource(String database, int maximumPoolSize) {
		TestDatabase server = TestDatabase.get();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url(database));
		config.setUsername(server.username());
		config.setPassword(server.password());
		config.setMaximumPoolSize(maximumPoolSize);
		config.setMinimumIdle(0);
		config.setPoolName("pgbouncer-" + database.toLowerCase(Locale.ROOT) + "-" + maximumPoolSize);
		return new HikariDataSource(config);
	}

	/**
	 * Open one client connection to PgBouncer, outside any pool; the caller closes it.
	 * @param database {@link #POOLED} or {@link #ONE_SERVER_CONNECTION}
	 * @return the connection, in auto-commit mode
	 * @throws SQLException if PgBouncer refuses it
	 */
	public Connection connect(String database) throws SQLException {
		TestDatabase server = TestDatabase.get();
		return DriverManager.getConnection(url(database), server.username(), server.password());
	}

}
