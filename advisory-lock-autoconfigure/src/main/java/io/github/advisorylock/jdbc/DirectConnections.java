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

package io.github.advisorylock.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.util.ClassUtils;

/**
 * Derives, from the application's Hikari pool, sources of connections that bypass the pool: short-lived physical
 * connections for the reads that must answer when the pool is exhausted (a timeout's diagnosis, the
 * {@code advisorylocks} endpoint), each step bounded (connecting, logging in, every read on the socket); and a small
 * pool of its own for the connections that hold invocation-scoped locks.
 *
 * <p>pgjdbc lets a parameter in the URL win over the same property passed beside it, so the bounds and the
 * application name are removed from the pool's URL before they are set as properties: a pool URL with
 * {@code socketTimeout=0} cannot make a direct read unbounded.
 */
final class DirectConnections {

	/** Most reads on direct connections at once, per user; further ones are refused rather than queued. */
	static final int MAX_CONCURRENT = 2;

	/** The URL parameters set here, which would otherwise override the properties. */
	private static final Set<String> OVERRIDDEN = Set.of("connectTimeout", "loginTimeout", "socketTimeout",
			"ApplicationName");

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			DirectConnections.class.getClassLoader());

	private DirectConnections() {
	}

	/**
	 * Return a bound in whole seconds, as JDBC takes it, rounded up and at least 1.
	 * @param duration the bound
	 * @return the seconds
	 */
	static int seconds(Duration duration) {
		return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (duration.toMillis() + 999) / 1000));
	}

	/**
	 * Derive a direct connection source from the application's data source.
	 * @param dataSource the application's data source
	 * @param timeout the bound on connecting and on each read, at least one second
	 * @param applicationName the {@code application_name} of the direct sessions
	 * @return the source, or {@code null} when the data source is not a Hikari pool with a JDBC URL
	 */
	static @Nullable DataSource of(DataSource dataSource, Duration timeout, String applicationName) {
		return HIKARI_PRESENT ? Hikari.directConnections(dataSource, timeout, applicationName) : null;
	}

	/**
	 * Derive, from the application's Hikari pool, a pool of its own for the connections that hold invocation-scoped
	 * locks: the same server, credentials and driver settings, at most {@code maxConnections} connections, none kept
	 * open when unused for the pool's idle timeout.
	 * @param dataSource the application's data source
	 * @param maxConnections the most connections
	 * @return the pool (close it when done), or {@code null} when the data source is not a Hikari pool
	 */
	static @Nullable DataSource pool(DataSource dataSource, int maxConnections) {
		return HIKARI_PRESENT ? Hikari.pool(dataSource, maxConnections) : null;
	}

	/**
	 * Remove the parameters this class sets from a JDBC URL's query string.
	 * @param url the JDBC URL
	 * @return the URL without them
	 */
	static String withoutOverriddenParameters(String url) {
		int query = url.indexOf('?');
		if (query < 0) {
			return url;
		}
		String kept = Arrays.stream(url.substring(query + 1).split("&"))
			.filter((parameter) -> !parameter.isEmpty())
			.filter((parameter) -> !OVERRIDDEN.contains(parameter.split("=", 2)[0]))
			.collect(Collectors.joining("&"));
		return kept.isEmpty() ? url.substring(0, query) : url.substring(0, query + 1) + kept;
	}

	/**
	 * Reads the pool's settings; a separate class, so Hikari is loaded only when present.
	 */
	private static final class Hikari {

		static @Nullable DataSource pool(DataSource dataSource, int maxConnections) {
			try {
				if (!dataSource.isWrapperFor(HikariDataSource.class)) {
					return null;
				}
				HikariDataSource application = dataSource.unwrap(HikariDataSource.class);
				HikariConfig config = new HikariConfig();
				// Everything that reaches the server (URL or DataSource, credentials, properties, init SQL) is kept.
				application.copyStateTo(config);
				config.setPoolName(((application.getPoolName() != null) ? application.getPoolName() : "HikariPool")
						+ "-advisory-lock");
				config.setMaximumPoolSize(maxConnections);
				config.setMinimumIdle(0);
				config.setRegisterMbeans(false);
				// A lock held for minutes is the point, not a leak.
				config.setLeakDetectionThreshold(0);
				// Connecting fails at first use rather than at startup, as the lock is needed only then.
				config.setInitializationFailTimeout(-1);
				return new HikariDataSource(config);
			}
			catch (SQLException ex) {
				return null;
			}
		}

		static @Nullable DataSource directConnections(DataSource dataSource, Duration timeout,
				String applicationName) {
			try {
				if (!dataSource.isWrapperFor(HikariDataSource.class)) {
					return null;
				}
				HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
				if (hikari.getJdbcUrl() == null) {
					return null;
				}
				Properties properties = new Properties();
				properties.putAll(hikari.getDataSourceProperties());
				if (hikari.getUsername() != null) {
					properties.setProperty("user", hikari.getUsername());
				}
				if (hikari.getPassword() != null) {
					properties.setProperty("password", hikari.getPassword());
				}
				int seconds = seconds(timeout);
				properties.setProperty("connectTimeout", Integer.toString(seconds));
				properties.setProperty("loginTimeout", Integer.toString(seconds));
				// A read that hangs (a dead server) is cut after the query timeout plus one second of grace.
				properties.setProperty("socketTimeout", Integer.toString(seconds + 1));
				properties.setProperty("ApplicationName", applicationName);
				DriverManagerDataSource direct = new DriverManagerDataSource(
						withoutOverriddenParameters(hikari.getJdbcUrl()));
				direct.setConnectionProperties(properties);
				return direct;
			}
			catch (SQLException ex) {
				return null;
			}
		}

	}

}
