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

package io.github.advisorylock.actuate;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.TwoDatabases;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLockDescriptor;
import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLocksDescriptor;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockEndpointAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the {@link AdvisoryLocksEndpoint} of an application with two
 * {@link DataSource}s on two databases: {@code /advisorylocks/{dataSource}} shows each by
 * bean name, {@code /advisorylocks} the primary one.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class SeveralDataSourcesEndpointTests {

	// The endpoint's bound on connecting and reading is 1s by default: a new connection
	// on a loaded machine can take longer, and these tests read what it shows.
	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks",
				"advisory-lock.diagnosis.timeout=30s")
		.withUserConfiguration(TwoDatabases.DataSources.class);

	private final long key = AdvisoryLockKeys.of("several-endpoint", UUID.randomUUID().toString());

	@Test
	void eachDataSourceIsReadByItsBeanNameOnItsOwnDatabase() {
		this.contextRunner.run((context) -> {
			AdvisoryLocksEndpoint endpoint = context.getBean(AdvisoryLocksEndpoint.class);
			try (LockHolder holder = LockHolder.exclusive(context.getBean("second", DataSource.class), this.key)) {
				assertThat(keys(endpoint.advisoryLocksOf("second"))).containsExactly(this.key);
				assertThat(endpoint.advisoryLocksOf("second").locks()).singleElement()
					.satisfies((lock) -> assertThat(lock.pid()).isEqualTo(holder.pid()));
				assertThat(keys(endpoint.advisoryLocksOf("first"))).doesNotContain(this.key);
				assertThat(endpoint.advisoryLocksOf("third")).isNull();
			}
		});
	}

	@Test
	void withoutAPrimaryTheRootIsABadRequestNamingTheDataSources() {
		this.contextRunner.run((context) -> assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> context.getBean(AdvisoryLocksEndpoint.class).advisoryLocks())
			.satisfies((ex) -> assertThat(ex.getReason())
				.isEqualTo("There are several DataSources and none is primary: ask /advisorylocks/{dataSource}, one "
						+ "of [first, second]")));
	}

	@Test
	void theRootShowsThePrimaryDataSource() {
		this.contextRunner.withUserConfiguration(PrimaryThird.class).run((context) -> {
			try (LockHolder second = LockHolder.exclusive(context.getBean("second", DataSource.class), this.key)) {
				AdvisoryLocksEndpoint endpoint = context.getBean(AdvisoryLocksEndpoint.class);
				// The primary is the second database's, under another name.
				assertThat(keys(endpoint.advisoryLocks())).containsExactly(this.key);
				assertThat(keys(endpoint.advisoryLocksOf("first"))).doesNotContain(this.key);
			}
		});
	}

	@Test
	void theWebEndpointHasARootAndASelectorByBeanName() {
		this.contextRunner.run((context) -> {
			Map<String, WebOperation> operations = AdvisoryLocksWebOperations.all(context);
			assertThat(operations).containsOnlyKeys("advisorylocks", "advisorylocks/{dataSource}");
			try (LockHolder holder = LockHolder.exclusive(context.getBean("second", DataSource.class), this.key)) {
				Object second = operations.get("advisorylocks/{dataSource}")
					.invoke(new InvocationContext(SecurityContext.NONE, Map.of("dataSource", "second")));
				assertThat(second).isInstanceOfSatisfying(WebEndpointResponse.class, (response) -> {
					assertThat(response.getStatus()).isEqualTo(WebEndpointResponse.STATUS_OK);
					assertThat(keys((AdvisoryLocksDescriptor) response.getBody())).containsExactly(this.key);
				});
			}
		});
	}

	private static List<Long> keys(AdvisoryLocksDescriptor locks) {
		return locks.locks().stream().map(AdvisoryLockDescriptor::key).toList();
	}

	@Configuration(proxyBeanMethods = false)
	static class PrimaryThird {

		@Bean
		@Primary
		HikariDataSource third() {
			return TwoDatabases.second(2);
		}

	}

}
