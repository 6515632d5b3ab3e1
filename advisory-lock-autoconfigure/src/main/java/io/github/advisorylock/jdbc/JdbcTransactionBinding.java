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

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.TransactionBinding;
import io.github.advisorylock.core.TransactionLockSynchronization;
import io.github.advisorylock.jdbc.LockDataSources.BoundConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * How a transaction-scoped lock joins the current Spring transaction of the thread: the
 * connection bound to it for one of the template's {@link LockDataSources}, got and
 * released through {@link DataSourceUtils}, and the keys recorded in
 * {@link TransactionLockSynchronization}.
 *
 * @author advisory-lock authors
 */
final class JdbcTransactionBinding implements TransactionBinding<JdbcTransactionBinding.TransactionConnection> {

	private final LockDataSources dataSources;

	private final AcquisitionSupport support;

	JdbcTransactionBinding(LockDataSources dataSources, AcquisitionSupport support) {
		this.dataSources = dataSources;
		this.support = support;
	}

	@Override
	public boolean inTransaction() {
		return TransactionSynchronizationManager.isActualTransactionActive();
	}

	@Override
	public @Nullable DataSource heldLocksTarget(LockRequest request) {
		BoundConnection bound = this.dataSources.boundIfUnique(request);
		if (bound != null) {
			return DataSourceUnwrapping.target(bound.resource());
		}
		String name = (request.dataSource() != null) ? request.dataSource() : this.dataSources.defaultName();
		return (name != null) ? DataSourceUnwrapping.target(this.dataSources.named(request.namespace(), name)) : null;
	}

	@Override
	public TransactionConnection bind(LockRequest request) {
		String namespace = request.namespace();
		if (request.dataSource() != null) {
			// A wrong name is a mistake in the code, whatever the transaction: say it
			// first.
			this.dataSources.named(namespace, request.dataSource());
		}
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw LockFailures.noTransactionRefusal(request);
		}
		LockFailures.checkReadCommitted(request,
				TransactionSynchronizationManager.getCurrentTransactionIsolationLevel());
		BoundConnection bound = this.dataSources.bound(request);
		Connection connection = DataSourceUtils.getConnection(bound.resource());
		try {
			// A holder bound by a JdbcTemplate call outside this DataSource's
			// transaction: the lock would end with its statement. Drivers answer this
			// from local state, without a round trip. (A pool that hands out connections
			// with auto-commit off defeats this check; the transaction manager check
			// above remains.)
			if (connection.getAutoCommit()) {
				throw LockFailures.autoCommitRefusal(request, "DataSource", "a transaction manager");
			}
		}
		catch (SQLException ex) {
			DataSourceUtils.releaseConnection(connection, bound.resource());
			throw this.support.translate(ex, "Check the transaction of advisory lock '" + namespace + "'");
		}
		catch (LockTransactionException ex) {
			DataSourceUtils.releaseConnection(connection, bound.resource());
			throw ex;
		}
		return new TransactionConnection(bound.dataSource(), bound.resource(), bound.holder(), connection,
				DataSourceUnwrapping.target(bound.resource()));
	}

	@Override
	public void record(TransactionConnection bound, LockMode mode, List<Long> keys, Acquisition acquisition) {
		TransactionLockSynchronization.record(mode, keys, bound.target(), bound.holder(), acquisition);
	}

	@Override
	public void release(TransactionConnection bound) {
		DataSourceUtils.releaseConnection(bound.connection(), bound.resource());
	}

	/**
	 * The connection of the current transaction a call joins.
	 *
	 * @param dataSource the known data source it belongs to
	 * @param resource the key it is bound under, which {@code DataSourceUtils} gets and
	 * releases it by
	 * @param holder its holder
	 * @param connection the connection
	 * @param target the innermost data source, which the locks are known by
	 */
	record TransactionConnection(DataSource dataSource, DataSource resource, ConnectionHolder holder,
			Connection connection, DataSource target) implements TransactionBinding.Bound {

	}

}
