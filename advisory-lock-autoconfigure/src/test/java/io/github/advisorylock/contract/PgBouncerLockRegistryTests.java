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

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.testsupport.PgBouncer;
import org.junit.jupiter.api.AfterAll;

/**
 * The Spring Integration lock registry's contract through a real PgBouncer in
 * {@code pool_mode = transaction}: each held lock is one transaction, holding one server
 * connection until it is released. Skipped, with a message naming the package, where
 * PgBouncer is not installed.
 */
class PgBouncerLockRegistryTests extends AbstractLockRegistryTests {

	private static HikariDataSource throughPgBouncer;

	@AfterAll
	static void closePool() {
		if (throughPgBouncer != null) {
			throughPgBouncer.close();
			// Started again by a later run of the class in the same JVM.
			throughPgBouncer = null;
		}
	}

	@Override
	protected DataSource dataSource() {
		if (throughPgBouncer == null) {
			throughPgBouncer = PgBouncer.get().newDataSource(PgBouncer.POOLED, 10);
		}
		return throughPgBouncer;
	}

}
