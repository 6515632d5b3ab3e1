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

import io.github.advisorylock.testsupport.PgBouncer;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.AfterAll;

/**
 * Reactive fenced writes through a real PgBouncer in {@code pool_mode = transaction},
 * with the R2DBC driver's statement cache off where PgBouncer does not track prepared
 * statements (docs/pgbouncer.md). Skipped, with a message naming the package, where
 * PgBouncer is not installed.
 */
class PgBouncerR2dbcFencedWritesTests extends AbstractReactiveFencedWritesTests {

	private static ConnectionPool throughPgBouncer;

	@AfterAll
	static void disposePool() {
		if (throughPgBouncer != null) {
			throughPgBouncer.dispose();
			// Started again by a later run of the class in the same JVM.
			throughPgBouncer = null;
		}
	}

	/**
	 * Start PgBouncer at the first test; where it is not installed, each test is reported
	 * skipped with the message.
	 */
	@Override
	protected ConnectionFactory connectionFactory() {
		if (throughPgBouncer == null) {
			throughPgBouncer = R2dbcConnectionFactories.throughPgBouncer(PgBouncer.POOLED, 10);
		}
		return throughPgBouncer;
	}

}
