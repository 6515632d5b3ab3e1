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

import java.sql.SQLException;
import java.util.List;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.advisorylock.JdbcLockFixture;
import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.jdbc.AdvisoryLockTemplate;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionStatus;

/**
 * The JDBC stack: {@link AdvisoryLockTemplate} in the transactions of a
 * {@code TransactionTemplate} on the fixture's data source, the steps running on the
 * calling thread.
 */
final class JdbcLockStack implements LockStack {

	private final JdbcLockFixture fixture;

	JdbcLockStack(JdbcLockFixture fixture) {
		this.fixture = fixture;
	}

	@Override
	public <T> T inTransaction(TransactionSteps<T> steps) {
		return this.fixture.transaction().execute((status) -> steps.run(new JdbcTransaction(status)));
	}

	@Override
	public <T> LockResult<T> execute(LockRequest request, Supplier<T> work) {
		return this.fixture.locks().execute(request, (handle) -> work.get());
	}

	@Override
	public void listen(LockAcquisitionListener listener) {
		this.fixture.locks().setListeners(List.of(listener));
	}

	@Override
	public DataSource holders() {
		return this.fixture.dataSource();
	}

	@Override
	public String sqlState(Throwable driverException) {
		return ((SQLException) driverException).getSQLState();
	}

	private final class JdbcTransaction implements Transaction {

		private final TransactionStatus status;

		private final AdvisoryLockTemplate locks = JdbcLockStack.this.fixture.locks();

		private final JdbcTemplate jdbc = JdbcLockStack.this.fixture.jdbc();

		JdbcTransaction(TransactionStatus status) {
			this.status = status;
		}

		@Override
		public void lock(LockRequest request) {
			this.locks.lock(request);
		}

		@Override
		public boolean tryLock(String namespace, Object... keys) {
			return this.locks.tryLock(namespace, keys);
		}

		@Override
		public <T> LockResult<T> execute(LockRequest request, Supplier<T> work) {
			return this.locks.execute(request, (handle) -> work.get());
		}

		@Override
		public int backendPid() {
			return queryForInt("SELECT pg_backend_pid()");
		}

		@Override
		public int queryForInt(String sql, Object... arguments) {
			Integer value = this.jdbc.queryForObject(sql, Integer.class, arguments);
			return (value != null) ? value : 0;
		}

		@Override
		public void update(String sql, Object... arguments) {
			this.jdbc.update(sql, arguments);
		}

		@Override
		public void setRollbackOnly() {
			this.status.setRollbackOnly();
		}

	}

}
