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

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.testsupport.PgBouncer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fenced writes tests through PgBouncer in transaction mode: the writers'
 * transactions and the lock sessions each get whichever server connection PgBouncer gives
 * them, and a lock session's server connection goes back to PgBouncer's pool when it
 * ends.
 */
class PgBouncerFencedWritesTests extends AbstractFencedWritesTests {

	private static HikariDataSource throughPgBouncer;

	@AfterAll
	static void closePool() {
		if (throughPgBouncer != null) {
			throughPgBouncer.close();
			// Started again by a later run of the class in the same JVM.
			throughPgBouncer = null;
		}
	}

	/**
	 * Start PgBouncer before each test; where it is not installed, each test is reported
	 * skipped with the harness's message.
	 */
	@BeforeEach
	void startPgBouncer() {
		PgBouncer.get();
	}

	@Override
	protected JdbcLockFixture newFixture() {
		return JdbcLockFixture.on(() -> {
			if (throughPgBouncer == null) {
				throughPgBouncer = PgBouncer.get().newDataSource(PgBouncer.POOLED, 10);
			}
			return throughPgBouncer;
		});
	}

}
