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

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of what the library derives from an application's Hikari pool, against real
 * PostgreSQL: the derived pool and the direct login reach the same server as the same
 * user, with the pool's driver settings, and a data source that is no Hikari pool gives
 * nothing to derive from.
 */
class HikariPoolsTests {

	private final TestDatabase database = TestDatabase.get();

	@Test
	void theApplicationPoolIsFoundThroughAWrapper() {
		try (HikariDataSource pool = this.database.newDataSource(1)) {
			assertThat(HikariPools.applicationPool(pool)).isSameAs(pool);
			assertThat(HikariPools.applicationPool(new TransactionAwareDataSourceProxy(pool))).isSameAs(pool);
		}
	}

	@Test
	void aDataSourceThatIsNoHikariPoolGivesNothingToDeriveFrom() {
		DataSource plain = new DriverManagerDataSource(this.database.url(), this.database.username(),
				this.database.password());
		assertThat(HikariPools.applicationPool(plain)).isNull();
	}

	@Test
	void theDerivedPoolReachesTheSameServerWithThePoolsSettingsAndItsOwnBound() throws Exception {
		try (HikariDataSource pool = applicationPool("derived-from-application")) {
			DataSource derived = HikariPools.derivedPool(pool, "-locks", 2);
			try (AutoCloseable closing = (AutoCloseable) derived;
					Connection first = derived.getConnection();
					Connection second = derived.getConnection()) {
				assertThat(setting(first, "application_name")).isEqualTo("derived-from-application");
				assertThat(setting(first, "current_user")).isEqualTo(this.database.username());
				assertThat(((HikariDataSource) derived).getPoolName()).isEqualTo("application-locks");
				assertThat(((HikariDataSource) derived).getMaximumPoolSize()).isEqualTo(2);
				// A bound of one second a loaded machine could exceed: only a hang fails.
				assertThat(second.isValid((int) PgLocks.HANG_TIMEOUT.toSeconds())).isTrue();
			}
		}
	}

	@Test
	void theLoginConnectsOutsideThePoolAsThePoolsUserWithItsDriverSettings() throws SQLException {
		try (HikariDataSource pool = applicationPool("direct-login")) {
			HikariPools.Login login = HikariPools.login(pool);
			assertThat(login).isNotNull();
			assertThat(login.jdbcUrl()).isEqualTo(pool.getJdbcUrl());
			try (Connection connection = DriverManager.getConnection(login.jdbcUrl(), login.properties())) {
				assertThat(setting(connection, "application_name")).isEqualTo("direct-login");
				assertThat(setting(connection, "current_user")).isEqualTo(this.database.username());
			}
		}
	}

	@Test
	void aPoolOverADataSourceClassHasNoLogin() {
		try (HikariDataSource pool = new HikariDataSource()) {
			pool.setDataSource(new DriverManagerDataSource(this.database.url()));
			assertThat(HikariPools.login(pool)).isNull();
		}
	}

	/**
	 * An application's pool with a driver setting of its own, not started: a started
	 * pool's settings are sealed.
	 */
	private HikariDataSource applicationPool(String applicationName) {
		HikariDataSource pool = new HikariDataSource();
		pool.setPoolName("application");
		pool.setJdbcUrl(this.database.url());
		pool.setUsername(this.database.username());
		pool.setPassword(this.database.password());
		pool.setMaximumPoolSize(1);
		pool.addDataSourceProperty("ApplicationName", applicationName);
		return pool;
	}

	private static String setting(Connection connection, String name) throws SQLException {
		String sql = name.equals("current_user") ? "SELECT current_user" : "SELECT current_setting('" + name + "')";
		try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
			result.next();
			return result.getString(1);
		}
	}

}
