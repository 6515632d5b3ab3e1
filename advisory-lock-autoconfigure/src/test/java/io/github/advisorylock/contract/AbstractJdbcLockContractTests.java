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

import io.github.advisorylock.JdbcLockFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lock contract on the JDBC stack:
 * {@link io.github.advisorylock.AdvisoryLockOperations} inside real Spring transactions
 * on the subclass's {@link DataSource} or, for an invocation scope, on a connection of
 * its own derived from it.
 */
abstract class AbstractJdbcLockContractTests extends AbstractLockContractTests {

	/**
	 * The topology under test, asked for before each test (see {@link #connect()}): one
	 * that is not installed aborts the test there.
	 */
	@RegisterExtension
	final JdbcLockFixture fixture = JdbcLockFixture.on(this::dataSource);

	private final LockStack stack = new JdbcLockStack(this.fixture);

	/**
	 * Return the data source of the topology under test: what the transactions, the locks
	 * and the other sessions' holders connect through.
	 * @return the data source
	 */
	protected abstract DataSource dataSource();

	/**
	 * Ask for the topology before the test's first step. A step may run on another thread
	 * or inside an assertion on what it throws, where a topology that is not installed
	 * would turn its skip into a failure.
	 */
	@BeforeEach
	void connect() {
		dataSource();
	}

	@Override
	protected LockStack stack() {
		return this.stack;
	}

}
