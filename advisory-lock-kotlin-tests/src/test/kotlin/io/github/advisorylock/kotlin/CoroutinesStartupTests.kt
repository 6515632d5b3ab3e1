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

package io.github.advisorylock.kotlin

import io.github.advisorylock.AdvisoryLocked
import io.github.advisorylock.WaitMode
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft
import io.github.advisorylock.testsupport.R2dbcConnectionFactories
import io.github.advisorylock.testsupport.TestDatabase
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.springframework.boot.WebApplicationType
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.jdbc.support.JdbcTransactionManager
import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional
import javax.sql.DataSource

/**
 * The startup check of `@AdvisoryLocked` on Kotlin `suspend` functions, in an application
 * with both stacks: what cannot be locked fails at startup naming the function and what
 * to change.
 */
@ExtendWith(NoAdvisoryLocksLeft::class)
class CoroutinesStartupTests {

	@Test
	fun `skip on a suspend function returning a value that cannot be null is refused at startup`() {
		assertThatThrownBy {
			SpringApplicationBuilder(Config::class.java)
				.web(WebApplicationType.NONE)
				.properties(*R2dbcConnectionFactories.springR2dbcPropertyValues())
				.run()
				.close()
		}.rootCause()
			.hasMessageContaining("SkippedRequests.request(long, Continuation)")
			.hasMessageContaining("a suspend function must return Unit or a nullable type")
			.hasMessageContaining("declare it to return ")
	}

	@Service
	class SkippedRequests {

		@Transactional("connectionFactoryTransactionManager")
		@AdvisoryLocked(namespace = "kotlin_skip", key = ["#userId"], waitMode = WaitMode.SKIP)
		suspend fun request(userId: Long): Boolean = true

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	class Config {

		/** Spring Boot defines no DataSource where there is an R2DBC ConnectionFactory. */
		@Bean
		fun dataSource(): DataSource = TestDatabase.get().dataSource()

		@Bean
		fun transactionManager(dataSource: DataSource) = JdbcTransactionManager(dataSource)

		@Bean
		fun skippedRequests() = SkippedRequests()

	}

}
