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

import javax.sql.DataSource;

import io.github.advisorylock.hikari.HikariPools;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

/**
 * How data sources relate through their wrappers, unwrapped as Spring unwraps
 * transactional resources, then along {@link DelegatingDataSource#getTargetDataSource()}:
 * whether two are the same pool, and which pool a call on one reaches.
 *
 * @author advisory-lock authors
 */
final class JdbcDataSourceUnwrapping {

	/** The most wrappers followed, so that one that wraps itself cannot loop. */
	private static final int MAX_LAYERS = 16;

	private JdbcDataSourceUnwrapping() {
	}

	/** Return whether two are the same, one wraps the other, or both wrap the same. */
	static boolean sameDataSource(DataSource first, DataSource second) {
		DataSource outer = first;
		for (int i = 0; outer != null && i < MAX_LAYERS; i++, outer = unwrap(outer)) {
			DataSource inner = second;
			for (int j = 0; inner != null && j < MAX_LAYERS; j++, inner = unwrap(inner)) {
				if (outer == inner) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Return the innermost data source, which tells calls on one pool from calls on
	 * another whatever their wrappers. A routing one ({@link AbstractRoutingDataSource})
	 * stands for the Hikari pool it routes to at this call, so that a key held for one
	 * target is not taken for held on another.
	 */
	static DataSource target(DataSource dataSource) {
		DataSource target = innermost(dataSource);
		return (target instanceof AbstractRoutingDataSource routing) ? routedTo(routing) : target;
	}

	/** Return the innermost data source, a routing one as it is. */
	static DataSource innermost(DataSource dataSource) {
		DataSource target = dataSource;
		for (int i = 0; i < MAX_LAYERS; i++) {
			DataSource inner = unwrap(target);
			if (inner == null) {
				break;
			}
			target = inner;
		}
		return target;
	}

	/**
	 * Return what {@link #target} returns at every call, when only
	 * {@link DelegatingDataSource}s wrap it and it routes nowhere. A scoped proxy, which
	 * Spring unwraps to its target of the moment, or a routing one, may change.
	 * @return the target, or {@code null} when it may change between calls
	 */
	static @Nullable DataSource fixedTarget(DataSource dataSource) {
		DataSource target = dataSource;
		for (int i = 0; i < MAX_LAYERS; i++) {
			if (TransactionSynchronizationUtils.unwrapResourceIfNecessary(target) != target
					|| target instanceof AbstractRoutingDataSource) {
				return null;
			}
			if (!(target instanceof DelegatingDataSource delegating) || delegating.getTargetDataSource() == null) {
				return target;
			}
			target = delegating.getTargetDataSource();
		}
		return null;
	}

	private static DataSource routedTo(AbstractRoutingDataSource routing) {
		try {
			DataSource pool = HikariPools.applicationPool(routing);
			return (pool != null) ? pool : routing;
		}
		catch (RuntimeException ex) {
			// Routed nowhere now: a call that needs the database fails on its own, saying
			// so.
			return routing;
		}
	}

	private static @Nullable DataSource unwrap(DataSource dataSource) {
		Object unwrapped = TransactionSynchronizationUtils.unwrapResourceIfNecessary(dataSource);
		if (unwrapped != dataSource && unwrapped instanceof DataSource inner) {
			return inner;
		}
		return (dataSource instanceof DelegatingDataSource delegating) ? delegating.getTargetDataSource() : null;
	}

}
