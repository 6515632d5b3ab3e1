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

import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.AfterAll;

/**
 * The reactive lock contract on R2DBC connections straight to PostgreSQL.
 */
class DirectR2dbcLockContractTests extends AbstractReactiveLockContractTests {

	private static ConnectionPool pool;

	@AfterAll
	static void disposePool() {
		if (pool != null) {
			pool.dispose();
			// Made again by a later run of the class in the same JVM.
			pool = null;
		}
	}

	@Override
	protected ConnectionFactory connectionFactory() {
		if (pool == null) {
			pool = R2dbcConnectionFactories.direct(10);
		}
		return pool;
	}

	@Override
	protected String jdbcUrl() {
		return TestDatabase.get().url();
	}

}
