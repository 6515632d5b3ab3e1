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
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLocked;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;

/**
 * What the figures were measured on: machine, JVM, PostgreSQL and its settings that
 * matter here, and the versions of every library in the measurement.
 */
final class EnvironmentInfo {

	private EnvironmentInfo() {
	}

	/**
	 * Describe the environment.
	 * @param dataSource a connection to the database under measurement
	 * @param database how the database was chosen
	 * @return a two-column table
	 */
	static Table describe(DataSource dataSource, String database) {
		Table table = new Table("", "");
		table.row("Date",
				OffsetDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
		table.row("CPUs", Runtime.getRuntime().availableProcessors() + cpuModel());
		table.row("OS", System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
				+ System.getProperty("os.arch") + ")");
		table.row("JVM",
				System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
						+ System.getProperty("java.vm.vendor") + "), heap "
						+ Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			table.row("PostgreSQL", single(statement, "SHOW server_version") + ", " + database);
			table.row("PostgreSQL settings",
					"synchronous_commit=" + single(statement, "SHOW synchronous_commit") + ", fsync="
							+ single(statement, "SHOW fsync") + ", shared_buffers="
							+ single(statement, "SHOW shared_buffers") + ", max_connections="
							+ single(statement, "SHOW max_connections"));
			table.row("pgjdbc", connection.getMetaData().getDriverVersion());
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not describe the database", ex);
		}
		table.row("HikariCP", version(HikariDataSource.class, "com.zaxxer", "HikariCP"));
		table.row("Spring Boot", SpringBootVersion.getVersion());
		table.row("Spring Framework", SpringVersion.getVersion());
		table.row("advisory-lock",
				version(AdvisoryLocked.class, "io.github.advisorylock", "advisory-lock-autoconfigure") + gitCommit());
		table.row("Spring Integration (`JdbcLockRegistry`)",
				version(JdbcLockRegistry.class, "org.springframework.integration", "spring-integration-jdbc"));
		table.row("ShedLock (`JdbcTemplateLockProvider`)",
				version(JdbcTemplateLockProvider.class, "net.javacrumbs.shedlock", "shedlock-provider-jdbc-template"));
		return table;
	}

	private static String single(Statement statement, String sql) throws SQLException {
		try (ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getString(1);
		}
	}

	private static String cpuModel() {
		try {
			return Files.readAllLines(Path.of("/proc/cpuinfo"))
				.stream()
				.filter((line) -> line.startsWith("model name"))
				.map((line) -> " × " + line.substring(line.indexOf(':') + 1).strip())
				.findFirst()
				.orElse("");
		}
		catch (IOException | RuntimeException ex) {
			return "";
		}
	}

	/**
	 * Return the version of a library from its Maven descriptor, or its jar manifest.
	 */
	static String version(Class<?> type, String groupId, String artifactId) {
		String descriptor = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
		try (InputStream in = type.getClassLoader().getResourceAsStream(descriptor)) {
			if (in != null) {
				Properties properties = new Properties();
				properties.load(in);
				return properties.getProperty("version");
			}
		}
		catch (IOException ex) {
			// fall through to the manifest
		}
		String version = type.getPackage().getImplementationVersion();
		return (version != null) ? version : System.getProperty("benchmarks.project-version", "unknown");
	}

	private static String gitCommit() {
		try {
			List<String> command = new ArrayList<>(List.of("git", "describe", "--always", "--dirty=+changes"));
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes()).strip();
			return (process.waitFor() == 0 && output.matches("[0-9a-f]+(\\+changes)?")) ? " (commit " + output + ")"
					: "";
		}
		catch (IOException ex) {
			return "";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "";
		}
	}

}
