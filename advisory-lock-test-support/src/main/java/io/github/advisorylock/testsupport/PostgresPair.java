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
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.util.FileSystemUtils;

/**
 * A primary PostgreSQL with one streaming standby, both from zonky's embedded binaries,
 * on loopback, and the failover from one to the other. The two servers keep two ports for
 * the whole run: after a failover the new standby is built on the old primary's port, so
 * that one multi-host JDBC URL names both servers throughout.
 *
 * <p>
 * The zonky binaries have no {@code pg_basebackup}, so a standby is built with
 * PostgreSQL's low-level base backup: {@code pg_backup_start}, a copy of the data
 * directory, {@code pg_backup_stop}, whose label is written as {@code backup_label}, and
 * a physical replication slot that keeps the WAL from the backup's start until the
 * standby streams it.
 *
 * <p>
 * The chaos run fails it over; the tests through pgpool-II put pgpool in front of it.
 *
 * @author advisory-lock authors
 */
public final class PostgresPair implements AutoCloseable {

	/**
	 * The standby's {@code application_name}, which {@code synchronous_standby_names}
	 * names.
	 */
	private static final String STANDBY_NAME = "pair_standby";

	/** The primary's replication slot for the standby. */
	private static final String SLOT = "pair_standby";

	/** What pg_basebackup leaves out of a base backup: these directories' contents. */
	private static final Set<String> EMPTIED = Set.of("pg_wal", "pg_replslot", "pg_dynshmem", "pg_notify", "pg_serial",
			"pg_snapshots", "pg_stat_tmp", "pg_subtrans");

	/** And these files, zonky's lock file included. */
	private static final Set<String> SKIPPED = Set.of("postmaster.pid", "postmaster.opts", "epg-lock", "backup_label",
			"tablespace_map", "standby.signal", "recovery.signal", "postgresql.auto.conf", "postgresql.auto.conf.tmp",
			"current_logfiles", "pg_internal.init");

	/** The directory of the binaries every server runs, read from the first. */
	private static volatile Path binaries;

	private final Replication replication;

	private volatile Server primary;

	/** Null while a failover builds the next one. */
	private volatile Server standby;

	private PostgresPair(Replication replication, Server primary) {
		this.replication = replication;
		this.primary = primary;
	}

	/**
	 * Start a primary on a free port and a standby streaming from it.
	 * @param replication synchronous or asynchronous
	 * @return the pair, both servers running
	 * @throws IOException if a server cannot be started
	 */
	public static PostgresPair start(Replication replication) throws IOException {
		Path data = Files.createTempDirectory("advisory-lock-primary");
		PostgresPair pair = new PostgresPair(replication, new Server(startServer(data, 0, replication), data));
		try {
			pair.primary.binaries();
			pair.standby = pair.buildStandby(freePort());
			return pair;
		}
		catch (IOException | RuntimeException ex) {
			pair.close();
			throw ex;
		}
	}

	private static EmbeddedPostgres startServer(Path data, int port, Replication replication) throws IOException {
		// Durable, as a production server: a server that drops acknowledged commits on a
		// stop would blame the library for its own losses.
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
			.setDataDirectory(data)
			.setCleanDataDirectory(false)
			.setPGStartupWait(Duration.ofSeconds(60))
			.setServerConfig("fsync", "on")
			.setServerConfig("synchronous_commit", "on")
			.setServerConfig("full_page_writes", "on")
			.setServerConfig("max_connections", "200")
			.setServerConfig("wal_level", "replica")
			.setServerConfig("hot_standby", "on")
			// The checker orders the fenced job's batches by their commits' timestamps.
			.setServerConfig("track_commit_timestamp", "on")
			// A standby whose primary restarted streams again within half a second, not
			// the default 5 s, in which synchronous commits would wait.
			.setServerConfig("wal_retrieve_retry_interval", "500ms");
		if (replication == Replication.SYNC) {
			// On a standby too: it applies once the standby is promoted. pg_ctl passes
			// these options through a shell, so a plain name, not '*'.
			builder.setServerConfig("synchronous_standby_names", STANDBY_NAME);
		}
		if (port != 0) {
			builder.setPort(port);
		}
		return builder.start();
	}

	/**
	 * Build a standby from the primary on a port and start it; return once it accepts
	 * connections and streams.
	 */
	private Server buildStandby(int port) throws IOException {
		Server from = this.primary;
		Path data = Files.createTempDirectory("advisory-lock-standby");
		try {
			String label;
			try (Connection connection = DriverManager.getConnection(from.url(), "postgres", "postgres");
					Statement statement = connection.createStatement()) {
				// Nothing here may wait for a synchronous standby: there is none yet.
				statement.execute("SET synchronous_commit = local");
				statement.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
						+ "WHERE slot_name = '" + SLOT + "' AND NOT active");
				statement.execute("SELECT pg_create_physical_replication_slot('" + SLOT + "', true)");
				statement.execute("SELECT pg_backup_start('pair standby', true)");
				copyDataDirectory(from.data(), data);
				try (ResultSet result = statement.executeQuery("SELECT labelfile FROM pg_backup_stop(false)")) {
					result.next();
					label = result.getString(1);
				}
			}
			Files.writeString(data.resolve("backup_label"), label, StandardCharsets.UTF_8);
			Files.writeString(data.resolve("standby.signal"), "");
			Files.writeString(data.resolve("postgresql.auto.conf"),
					"# Written by PostgresPair: a standby of the server on port " + from.port() + "\n"
							+ "primary_conninfo = 'host=localhost port=" + from.port() + " user=postgres "
							+ "application_name=" + STANDBY_NAME + "'\n" + "primary_slot_name = '" + SLOT + "'\n",
					StandardCharsets.UTF_8);
			Server standby = new Server(startServer(data, port, this.replication), data);
			awaitStreaming(from);
			return standby;
		}
		catch (SQLException ex) {
			FileSystemUtils.deleteRecursively(data.toFile());
			throw new IllegalStateException("Could not build a standby of the server on port " + from.port(), ex);
		}
		catch (IOException | RuntimeException ex) {
			FileSystemUtils.deleteRecursively(data.toFile());
			throw ex;
		}
	}

	/**
	 * Copy a running server's data directory as pg_basebackup does: files that vanish
	 * while copied are left out, torn pages are repaired by the WAL replayed from the
	 * backup's start ({@code full_page_writes} is on).
	 */
	private static void copyDataDirectory(Path from, Path to) throws IOException {
		Files.walkFileTree(from, new SimpleFileVisitor<>() {

			@Override
			public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes)
					throws IOException {
				Path relative = from.relativize(directory);
				Path target = to.resolve(relative.toString());
				Files.createDirectories(target);
				if (relative.getNameCount() == 1 && EMPTIED.contains(relative.toString())) {
					if (relative.toString().equals("pg_wal")) {
						Files.createDirectories(target.resolve("archive_status"));
						Files.createDirectories(target.resolve("summaries"));
					}
					return FileVisitResult.SKIP_SUBTREE;
				}
				if (directory.getFileName().toString().startsWith("pgsql_tmp")) {
					return FileVisitResult.SKIP_SUBTREE;
				}
				return FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
				if (!SKIPPED.contains(file.getFileName().toString())) {
					try {
						Files.copy(file, to.resolve(from.relativize(file).toString()),
								StandardCopyOption.REPLACE_EXISTING);
					}
					catch (NoSuchFileException vanished) {
						// Dropped while copied: the WAL replay drops it too.
					}
				}
				return FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult visitFileFailed(Path file, IOException ex) throws IOException {
				if (ex instanceof NoSuchFileException) {
					return FileVisitResult.CONTINUE;
				}
				throw ex;
			}

		});
	}

	/**
	 * Wait until the primary sees its standby streaming, synchronously when the
	 * replication is: before that, a synchronous commit waits.
	 */
	private void awaitStreaming(Server primary) {
		String state = (this.replication == Replication.SYNC) ? "sync" : "async";
		Duration bound = Duration.ofSeconds(60);
		long deadline = System.nanoTime() + bound.toNanos();
		while (!streaming(primary, state)) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The standby did not stream (" + state + ") from the server on port "
						+ primary.port() + " within " + bound);
			}
			LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
		}
	}

	private static boolean streaming(Server primary, String state) {
		try (Connection connection = DriverManager.getConnection(primary.url(), "postgres", "postgres");
				Statement statement = connection.createStatement();
				ResultSet result = statement
					.executeQuery("SELECT count(*) FROM pg_stat_replication " + "WHERE application_name = '"
							+ STANDBY_NAME + "' AND state = 'streaming' AND sync_state = '" + state + "'")) {
			result.next();
			return result.getInt(1) > 0;
		}
		catch (SQLException ex) {
			// The primary is busy or restarting: ask again.
			return false;
		}
	}

	/**
	 * Fail over: promote the standby ({@code pg_ctl promote}), stop the old primary the
	 * hard way ({@code pg_ctl stop -m immediate}, a crash as an HA manager sees one),
	 * then, once {@code between} has run, build a fresh standby from the new primary on
	 * the old primary's port, and delete the old data directory.
	 * @param between what to do once the old primary is down and before the new standby
	 * exists, such as re-pointing PgBouncer
	 * @return what it took
	 * @throws IOException if a server cannot be started
	 */
	public Failover failover(Runnable between) throws IOException {
		Server old = this.primary;
		Server promoted = this.standby;
		if (promoted == null) {
			throw new IllegalStateException("No standby to fail over to");
		}
		long start = System.nanoTime();
		pgCtl(promoted, "promote", "-w", "-t", "60");
		long promotedNanos = System.nanoTime();
		pgCtl(old, "stop", "-m", "immediate", "-w", "-t", "60");
		long twoPrimaries = System.nanoTime() - promotedNanos;
		OffsetDateTime promotedAt = now(promoted);
		this.primary = promoted;
		this.standby = null;
		old.discard();
		between.run();
		this.standby = buildStandby(old.port());
		return new Failover(promotedAt, Duration.ofNanos(promotedNanos - start).toMillis(),
				Duration.ofNanos(twoPrimaries).toMillis(), Duration.ofNanos(System.nanoTime() - start).toMillis());
	}

	/**
	 * What a failover took.
	 *
	 * @param at the moment the new primary was promoted and the old one down, in the new
	 * primary's clock
	 * @param promoteMillis how long {@code pg_ctl promote -w} took
	 * @param twoPrimariesMillis how long both servers were primaries: from the end of the
	 * promotion to the end of the old primary's stop
	 * @param totalMillis how long the whole failover took, the new standby streaming
	 */
	public record Failover(OffsetDateTime at, long promoteMillis, long twoPrimariesMillis, long totalMillis) {
	}

	/**
	 * Stop the primary ({@code pg_ctl stop -m fast}, zonky's close) and start it again on
	 * the same data directory and port; the standby reconnects by itself.
	 */
	public void restartPrimary() {
		Server server = this.primary;
		try {
			server.postgres().close();
			this.primary = new Server(startServer(server.data(), server.port(), this.replication), server.data());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not restart PostgreSQL", ex);
		}
	}

	/**
	 * Return the port of the primary.
	 * @return the port
	 */
	public int primaryPort() {
		return this.primary.port();
	}

	/**
	 * Return the port of the standby.
	 * @return the port
	 * @throws IllegalStateException during a failover, which builds the next one
	 */
	public int standbyPort() {
		Server standby = this.standby;
		if (standby == null) {
			throw new IllegalStateException("No standby: a failover is building the next one");
		}
		return standby.port();
	}

	/**
	 * Return a JDBC URL that names both servers, primary first, for pgjdbc to pick the
	 * kind of server given: the two ports stay the same across failovers.
	 * @param targetServerType {@code primary} or {@code secondary}
	 * @return the URL
	 */
	public String url(String targetServerType) {
		Server standby = this.standby;
		int other = (standby != null) ? standby.port() : this.primary.port();
		return "jdbc:postgresql://localhost:" + this.primary.port() + ",localhost:" + other
				+ "/postgres?targetServerType=" + targetServerType;
	}

	/**
	 * Return the replication between the two servers.
	 * @return synchronous or asynchronous
	 */
	public Replication replication() {
		return this.replication;
	}

	/**
	 * Stop both servers and delete their data; safe to call more than once.
	 */
	@Override
	public void close() {
		Server standby = this.standby;
		this.standby = null;
		try {
			if (standby != null) {
				standby.stop();
			}
		}
		finally {
			this.primary.stop();
		}
	}

	private static OffsetDateTime now(Server server) {
		try (Connection connection = DriverManager.getConnection(server.url(), "postgres", "postgres");
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT clock_timestamp()")) {
			result.next();
			return result.getObject(1, OffsetDateTime.class);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the clock of the server on port " + server.port(), ex);
		}
	}

	/**
	 * Run the server's own {@code pg_ctl} on its data directory: as root inside a user
	 * namespace, as zonky starts it, since pg_ctl refuses root.
	 */
	private static void pgCtl(Server server, String... arguments) {
		List<String> command = new ArrayList<>();
		if ("root".equals(System.getProperty("user.name"))) {
			command.addAll(List.of("unshare", "-U"));
		}
		command.add(server.binaries().resolve("pg_ctl").toString());
		command.addAll(List.of("-D", server.data().toString()));
		command.addAll(List.of(arguments));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(90, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

	/**
	 * Return a port free on the loopback address now.
	 * @return the port
	 * @throws IOException if no socket can be opened
	 */
	public static int freePort() throws IOException {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
				java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	/**
	 * How the primary's commits wait for the standby, chosen with
	 * {@code -Dchaos.replication=sync|async} (default {@code sync}).
	 */
	public enum Replication {

		/**
		 * {@code synchronous_standby_names} names the standby: a commit is acknowledged
		 * once the standby has flushed it.
		 */
		SYNC("synchronous"),

		/** A commit is acknowledged once the primary has flushed it. */
		ASYNC("asynchronous");

		private final String description;

		Replication(String description) {
			this.description = description;
		}

		/**
		 * Return the setting of this run.
		 * @return from {@code chaos.replication}
		 */
		public static Replication fromSystemProperty() {
			String value = System.getProperty("chaos.replication", "sync").trim().toUpperCase(Locale.ROOT);
			try {
				return valueOf(value);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						"-Dchaos.replication=" + value + " is not known: use sync (the default) or async", ex);
			}
		}

		/**
		 * Return the word for the report.
		 * @return {@code synchronous} or {@code asynchronous}
		 */
		public String description() {
			return this.description;
		}

	}

	/**
	 * One running server.
	 *
	 * @param postgres zonky's handle of it
	 * @param data its data directory
	 */
	private record Server(EmbeddedPostgres postgres, Path data) {

		int port() {
			return this.postgres.getPort();
		}

		String url() {
			return "jdbc:postgresql://localhost:" + port() + "/postgres";
		}

		/**
		 * Return the directory of the binaries this server runs: PostgreSQL computes its
		 * paths from where its executable is, so {@code pg_config} names zonky's.
		 */
		Path binaries() {
			Path known = PostgresPair.binaries;
			if (known != null) {
				return known;
			}
			try (Connection connection = DriverManager.getConnection(url(), "postgres", "postgres");
					Statement statement = connection.createStatement();
					ResultSet result = statement.executeQuery("SELECT setting FROM pg_config WHERE name = 'BINDIR'")) {
				result.next();
				PostgresPair.binaries = Path.of(result.getString(1));
				return PostgresPair.binaries;
			}
			catch (SQLException ex) {
				throw new IllegalStateException(
						"Could not read the binaries' directory of the server on port " + port(), ex);
			}
		}

		/**
		 * Let zonky go of a server already stopped, then delete its data.
		 */
		void discard() {
			try {
				// zonky's close runs pg_ctl stop, which finds no server: it logs an
				// ERROR.
				System.out.println("== the old primary on port " + port() + " was stopped with -m immediate: "
						+ "zonky's 'Could not stop postmaster' that may follow is expected");
				this.postgres.close();
			}
			catch (IOException ex) {
				// Already stopped.
			}
			finally {
				FileSystemUtils.deleteRecursively(this.data.toFile());
			}
		}

		void stop() {
			try {
				this.postgres.close();
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
