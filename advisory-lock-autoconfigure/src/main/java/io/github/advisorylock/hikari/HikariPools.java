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
package io.github.advisorylock.hikari;

import java.sql.SQLException;
import java.util.Properties;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * What the library derives from one of the application's Hikari pools, in one place: the
 * pool a data source stands for, a pool of the library's own on the same server, and how
 * to log in to that server outside any pool: invocation-scoped locks and the reads of
 * {@code pg_locks} need connections the application's pool cannot starve, on the same
 * server with the same credentials and driver settings. Internal, not API. HikariCP is
 * optional: without it, no data source is a Hikari pool.
 *
 * @author advisory-lock authors
 */
public final class HikariPools {

	private static final boolean PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			HikariPools.class.getClassLoader());

	private HikariPools() {
	}

	/**
	 * Return the Hikari pool a data source is, wraps, or routes to at this call: a
	 * routing one ({@code AbstractRoutingDataSource}) unwraps to its current target.
	 * @param dataSource the application's data source
	 * @return the pool, or {@code null} when it is none (or Hikari is not on the class
	 * path)
	 * @throws RuntimeException as a routing data source throws it when it routes to
	 * nothing now
	 */
	public static @Nullable DataSource applicationPool(DataSource dataSource) {
		return PRESENT ? Hikari.unwrap(dataSource) : null;
	}

	/**
	 * Derive a pool of the library's own from one of the application's: the same server,
	 * credentials, driver settings and init SQL, at most {@code maxConnections}
	 * connections, none kept open when unused for the pool's idle timeout, and no check
	 * at startup (connecting fails at first use).
	 * @param applicationPool a pool {@link #applicationPool} returned
	 * @param nameSuffix appended to the application pool's name, to tell the two apart in
	 * the pool's logs and metrics
	 * @param maxConnections the most connections
	 * @return the pool; close it when done
	 */
	public static DataSource derivedPool(DataSource applicationPool, String nameSuffix, int maxConnections) {
		return Hikari.derivedPool(applicationPool, nameSuffix, maxConnections);
	}

	/**
	 * Return how to log in to the server of one of the application's pools without a
	 * pool: its JDBC URL, and the driver properties with the credentials.
	 * @param applicationPool a pool {@link #applicationPool} returned
	 * @return the login, or {@code null} when the pool has no JDBC URL (it wraps a
	 * {@code DataSource} class instead)
	 */
	public static @Nullable Login login(DataSource applicationPool) {
		return Hikari.login(applicationPool);
	}

	/**
	 * How to log in to a server with {@code DriverManager}.
	 *
	 * @param jdbcUrl the pool's JDBC URL
	 * @param properties the pool's driver properties, with {@code user} and
	 * {@code password} when it has them: a copy, free to change
	 */
	public record Login(String jdbcUrl, Properties properties) {

	}

	/**
	 * Reads the pool's settings; a separate class, so Hikari is loaded only when present.
	 */
	private static final class Hikari {

		static @Nullable DataSource unwrap(DataSource dataSource) {
			try {
				return dataSource.isWrapperFor(HikariDataSource.class) ? dataSource.unwrap(HikariDataSource.class)
						: null;
			}
			catch (SQLException ex) {
				return null;
			}
		}

		static DataSource derivedPool(DataSource applicationPool, String nameSuffix, int maxConnections) {
			HikariDataSource application = (HikariDataSource) applicationPool;
			HikariConfig config = new HikariConfig();
			// Everything that reaches the server (URL or DataSource, credentials,
			// properties, init SQL) is kept.
			application.copyStateTo(config);
			config.setPoolName(
					((application.getPoolName() != null) ? application.getPoolName() : "HikariPool") + nameSuffix);
			config.setMaximumPoolSize(maxConnections);
			config.setMinimumIdle(0);
			config.setRegisterMbeans(false);
			// A lock held for minutes is the point, not a leak.
			config.setLeakDetectionThreshold(0);
			// Connecting fails at first use, not at startup: the pool is needed only
			// then.
			config.setInitializationFailTimeout(-1);
			return new HikariDataSource(config);
		}

		static @Nullable Login login(DataSource applicationPool) {
			HikariDataSource hikari = (HikariDataSource) applicationPool;
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
			return new Login(hikari.getJdbcUrl(), properties);
		}

	}

}
