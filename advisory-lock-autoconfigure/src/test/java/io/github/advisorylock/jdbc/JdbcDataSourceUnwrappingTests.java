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

import java.util.Map;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import org.springframework.aop.scope.ScopedObject;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which data sources' targets a template may find once, at its start, rather than at each
 * call: the transaction scope knows a single data source's locks by its fixed target, so
 * a wrapper whose target may change between calls must never be fixed.
 *
 * @author advisory-lock authors
 */
class DataSourceUnwrappingTests {

	private final DataSource pool = new DriverManagerDataSource("jdbc:postgresql://localhost/none");

	@Test
	void aPlainDataSourceIsItsOwnFixedTarget() {
		assertThat(JdbcDataSourceUnwrapping.fixedTarget(this.pool)).isSameAs(this.pool);
	}

	@Test
	void delegatingWrappersAreUnwrappedOnceToTheirFixedTarget() {
		DataSource wrapped = new TransactionAwareDataSourceProxy(new LazyConnectionDataSourceProxy(this.pool));
		assertThat(JdbcDataSourceUnwrapping.fixedTarget(wrapped)).isSameAs(this.pool)
			.isSameAs(JdbcDataSourceUnwrapping.target(wrapped));
	}

	@Test
	void aScopedProxyHasNoFixedTargetSinceARefreshChangesIt() {
		RefreshedDataSource refreshed = new RefreshedDataSource(this.pool);
		DataSource wrapped = new LazyConnectionDataSourceProxy(refreshed);
		assertThat(JdbcDataSourceUnwrapping.fixedTarget(refreshed)).isNull();
		assertThat(JdbcDataSourceUnwrapping.fixedTarget(wrapped)).isNull();
		DataSource next = new DriverManagerDataSource("jdbc:postgresql://localhost/next");
		refreshed.setTargetDataSource(next);
		assertThat(JdbcDataSourceUnwrapping.target(wrapped)).isSameAs(next);
	}

	@Test
	void aRoutingDataSourceHasNoFixedTargetSinceEachCallMayRouteElsewhere() {
		AbstractRoutingDataSource routing = new AbstractRoutingDataSource() {

			@Override
			protected Object determineCurrentLookupKey() {
				return "only";
			}

		};
		routing.setTargetDataSources(Map.of("only", this.pool));
		routing.afterPropertiesSet();
		assertThat(JdbcDataSourceUnwrapping.fixedTarget(routing)).isNull();
		assertThat(JdbcDataSourceUnwrapping.fixedTarget(new DelegatingDataSource(routing))).isNull();
	}

	/**
	 * What a refresh-scoped data source bean is to Spring: a scoped object, unwrapped to
	 * its target of the moment.
	 */
	static final class RefreshedDataSource extends DelegatingDataSource implements ScopedObject {

		RefreshedDataSource(DataSource target) {
			super(target);
		}

		@Override
		public Object getTargetObject() {
			return obtainTargetDataSource();
		}

		@Override
		public void removeFromScope() {
		}

	}

}
