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

package io.github.advisorylock.contract;

import javax.sql.DataSource;

import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock contract on connections straight to PostgreSQL.
 */
class DirectLockContractTests extends AbstractJdbcLockContractTests {

	@Override
	protected DataSource dataSource() {
		return TestDatabase.get().dataSource();
	}

	@Test
	void runsOnTheRequestedMajorVersion() {
		// The harness refuses to start on another version; this names the version in the
		// test report.
		String requested = System.getProperty(TestDatabase.POSTGRES_VERSION_PROPERTY);
		int major = TestDatabase.get().serverMajorVersion();
		assertThat(major).isGreaterThanOrEqualTo(13);
		if (requested != null && !requested.isBlank()) {
			assertThat(major).as("server major version").isEqualTo(Integer.parseInt(requested.trim()));
		}
	}

}
