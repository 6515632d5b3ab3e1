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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.NamedResources;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.JdbcTransactionObjectSupport;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

/**
 * The {@link DataSource}s a template may lock on, by bean name, and the default one:
 * whose connection bound to the thread's transactions a transaction-scoped call joins,
 * and which one an invocation-scoped call takes its own from. A bound resource belongs to
 * one when {@link JdbcDataSourceUnwrapping#sameDataSource} says so; others are ignored.
 *
 * @author advisory-lock authors
 */
final class JdbcDataSources extends NamedResources<DataSource> {

	/**
	 * The only data source's name, or {@code null}: the common case, looked up directly
	 * rather than by a scan of the thread's resources.
	 */
	private final @Nullable String onlyName;

	private final @Nullable DataSource only;

	/** What the only data source's locks are known by; {@code null} if it may change. */
	private final @Nullable DataSource onlyTarget;

	JdbcDataSources(Map<String, DataSource> byName, @Nullable String defaultName) {
		super("DataSource", byName, defaultName);
		Map.Entry<String, DataSource> first = byName().entrySet().iterator().next();
		boolean one = byName().size() == 1;
		this.onlyName = one ? first.getKey() : null;
		this.only = one ? first.getValue() : null;
		this.onlyTarget = one ? JdbcDataSourceUnwrapping.fixedTarget(first.getValue()) : null;
	}

	/**
	 * Join, through {@link DataSourceUtils}, the bound connection a call locks on: the
	 * named data source's, or else the only one of any known data source.
	 * @return the bound connection, to give back with
	 * {@link DataSourceUtils#releaseConnection}
	 * @throws LockTransactionException if none is bound, or several and no name
	 * @throws IllegalArgumentException if the name is none of the known ones
	 */
	BoundConnection bound(LockRequest request) {
		String name = request.dataSource();
		// Bound under the unwrapped key, as getResource looks it up.
		if (this.only != null && (name == null || name.equals(this.onlyName))
				&& TransactionSynchronizationManager.getResource(this.only) instanceof ConnectionHolder holder
				&& holder.getConnectionHandle() != null && TransactionSynchronizationUtils
					.unwrapResourceIfNecessary(this.only) instanceof DataSource resource) {
			return new BoundConnection(this.onlyName, this.only, resource, holder,
					(this.onlyTarget != null) ? this.onlyTarget : JdbcDataSourceUnwrapping.target(resource),
					DataSourceUtils.getConnection(resource));
		}
		DataSource named = (name != null) ? named(request.namespace(), name) : null;
		DataSource foundResource = null;
		ConnectionHolder foundHolder = null;
		String foundOwner = null;
		int count = 0;
		for (Map.Entry<Object, Object> entry : TransactionSynchronizationManager.getResourceMap().entrySet()) {
			if (entry.getKey() instanceof DataSource resource && entry.getValue() instanceof ConnectionHolder holder
					&& holder.getConnectionHandle() != null) {
				String owner = (named != null)
						? (JdbcDataSourceUnwrapping.sameDataSource(named, resource) ? name : null) : owner(resource);
				if (owner != null) {
					count++;
					foundResource = resource;
					foundHolder = holder;
					foundOwner = owner;
				}
			}
		}
		if (count == 1) {
			return new BoundConnection(foundOwner, byName().get(foundOwner), foundResource, foundHolder,
					JdbcDataSourceUnwrapping.target(foundResource), DataSourceUtils.getConnection(foundResource));
		}
		throw (count == 0) ? noConnectionException(request, name) : severalBoundException(request, name);
	}

	/**
	 * Return what the locks of the connection a call would join are known by, or
	 * {@code null} where {@link #bound} would throw a {@link LockTransactionException}.
	 * @throws IllegalArgumentException if the name is none of the known ones
	 */
	@Nullable DataSource boundTarget(LockRequest request) {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			return null;
		}
		BoundConnection bound;
		try {
			bound = bound(request);
		}
		catch (LockTransactionException ex) {
			return null;
		}
		// Joined to be told apart only: given back at once.
		DataSourceUtils.releaseConnection(bound.connection(), bound.resource());
		return bound.target();
	}

	/** Return the known data source a resource belongs to, the default first, or null. */
	private @Nullable String owner(DataSource resource) {
		DataSource defaultDataSource = defaultResource();
		if (defaultDataSource != null && JdbcDataSourceUnwrapping.sameDataSource(defaultDataSource, resource)) {
			return defaultName();
		}
		for (Map.Entry<String, DataSource> candidate : byName().entrySet()) {
			if (JdbcDataSourceUnwrapping.sameDataSource(candidate.getValue(), resource)) {
				return candidate.getKey();
			}
		}
		return null;
	}

	/** Return the known data sources with a connection bound, in the template's order. */
	private List<String> boundNames() {
		List<String> names = new ArrayList<>();
		for (Map.Entry<String, DataSource> candidate : byName().entrySet()) {
			for (Map.Entry<Object, Object> entry : TransactionSynchronizationManager.getResourceMap().entrySet()) {
				if (entry.getKey() instanceof DataSource resource && entry.getValue() instanceof ConnectionHolder holder
						&& holder.getConnectionHandle() != null
						&& JdbcDataSourceUnwrapping.sameDataSource(candidate.getValue(), resource)) {
					names.add(candidate.getKey());
					break;
				}
			}
		}
		return names;
	}

	private LockTransactionException noConnectionException(LockRequest request, @Nullable String name) {
		return noBoundConnection(request, name, (name != null) ? boundNames() : List.of(), "JDBC", "transaction",
				"manage that DataSource (DataSourceTransactionManager, JdbcTransactionManager, or "
						+ "JpaTransactionManager knowing its DataSource)");
	}

	private LockTransactionException severalBoundException(LockRequest request, @Nullable String name) {
		List<String> bound = boundNames();
		String fix = null;
		if (name != null || bound.size() < 2) {
			// Two managers of one pool (one through a wrapper): no name tells them apart.
			fix = "they belong to the same DataSource, so no name tells them apart; let one transaction manager "
					+ "manage it";
		}
		else {
			String innermost = innermostTransactional();
			if (innermost != null) {
				fix = "name the one the lock must join, for example @AdvisoryLocked(dataSource = \"" + innermost
						+ "\") or LockRequest.withDataSource(\"" + innermost + "\") for the one of the transaction "
						+ "of the innermost @Transactional method";
			}
		}
		return severalBound(request, bound, "transactions of this thread", fix);
	}

	/**
	 * Return the data source of the innermost {@code @Transactional} method's
	 * transaction, which the call most likely means, unless one begun inside it (with a
	 * {@code TransactionTemplate}, say) is current; {@code null} where that cannot be
	 * told, as the thread's resources keep no order.
	 */
	private @Nullable String innermostTransactional() {
		TransactionStatus status;
		try {
			status = TransactionAspectSupport.currentTransactionStatus();
		}
		catch (NoTransactionException ex) {
			return null;
		}
		// A transaction begun since names the thread's synchronization after itself
		// (unnamed, for a template).
		if (!(status instanceof DefaultTransactionStatus current) || !current.hasTransaction()
				|| !Objects.equals(current.getTransactionName(),
						TransactionSynchronizationManager.getCurrentTransactionName())
				|| !(current.getTransaction() instanceof JdbcTransactionObjectSupport transaction)
				|| !transaction.hasConnectionHolder()) {
			return null;
		}
		ConnectionHolder holder = transaction.getConnectionHolder();
		for (Map.Entry<Object, Object> entry : TransactionSynchronizationManager.getResourceMap().entrySet()) {
			if (entry.getValue() == holder && entry.getKey() instanceof DataSource resource) {
				return owner(resource);
			}
		}
		return null;
	}

	/**
	 * A bound connection a call joined, and the known data source it belongs to.
	 *
	 * @param resource the key it is bound under, which {@code DataSourceUtils} releases
	 * it by
	 * @param target what the locks are known by ({@link JdbcDataSourceUnwrapping#target})
	 */
	record BoundConnection(String name, DataSource dataSource, DataSource resource, ConnectionHolder holder,
			DataSource target, Connection connection) {

	}

}
