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

package io.github.advisorylock.r2dbc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.NamedResources;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Wrapped;
import org.jspecify.annotations.Nullable;

import org.springframework.r2dbc.connection.ConnectionHolder;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * The R2DBC connection factories locks may be taken on, by bean name, as
 * {@code JdbcDataSources} holds the JDBC ones: a request's {@code dataSource} names a
 * {@link ConnectionFactory} bean here.
 *
 * @author advisory-lock authors
 */
final class R2dbcConnectionFactories extends NamedResources<ConnectionFactory> {

	/** The drivers' connection factories, by the application's. */
	private final Map<ConnectionFactory, ConnectionFactory> drivers = new ConcurrentHashMap<>();

	R2dbcConnectionFactories(Map<String, ConnectionFactory> byName, @Nullable String defaultName) {
		super("ConnectionFactory", byName, defaultName);
	}

	/**
	 * Find the connection the transaction bound for the named connection factory or,
	 * without a name, for the only one that has one.
	 * @throws LockTransactionException if there is none, or several and no name
	 */
	BoundConnection bound(TransactionSynchronizationManager transaction, LockRequest request) {
		String name = request.dataSource();
		List<BoundConnection> bound = new ArrayList<>(1);
		List<String> boundNames = new ArrayList<>(1);
		byName().forEach((each, factory) -> {
			if ((name == null || name.equals(each))
					&& transaction.getResource(factory) instanceof ConnectionHolder holder) {
				bound.add(new BoundConnection(factory, holder.getConnection()));
				boundNames.add(each);
			}
		});
		if (bound.size() == 1) {
			return bound.get(0);
		}
		throw bound.isEmpty()
				? noBoundConnection(request, name, List.of(), "R2DBC", "reactive transaction",
						"be an R2dbcTransactionManager of that ConnectionFactory")
				: severalBound(request, boundNames, "current reactive transactions", null);
	}

	/**
	 * Return the driver's connection factory under the application's pool: a lock
	 * session's or a diagnosis's connection is never one the application's work needs.
	 */
	ConnectionFactory driver(ConnectionFactory factory) {
		return this.drivers.computeIfAbsent(factory, (application) -> {
			Object each = application;
			while (each instanceof Wrapped<?> wrapped && wrapped.unwrap() instanceof ConnectionFactory inner) {
				each = inner;
			}
			return (ConnectionFactory) each;
		});
	}

	/** A connection a reactive transaction bound, under its connection factory. */
	record BoundConnection(ConnectionFactory factory, Connection connection) {

	}

}
