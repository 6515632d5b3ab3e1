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

package io.github.advisorylock.interceptor;

import java.util.List;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that under {@link JpaTransactionManager} the lock is taken on the connection of
 * the Hibernate session.
 */
@ExtendWith(NoAdvisoryLocksLeft.class)
class AdvisoryLockedJpaTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(BootAutoConfigurations.dataSource(), BootAutoConfigurations.hibernateJpa(),
						BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
		.withPropertyValues(TestDatabase.get().springDataSourcePropertyValues())
		.withBean(JpaProbe.class);

	@Test
	void locksOnTheConnectionOfTheHibernateSession() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
			JpaProbe.Observation observation = context.getBean(JpaProbe.class).lockAndObserve("42");
			assertThat(observation.holders()).containsExactly(observation.sessionPid());
		});
	}

	static class JpaProbe {

		@PersistenceContext
		private EntityManager entityManager;

		@Transactional
		@AdvisoryLocked(namespace = "jpa", key = "#id")
		public Observation lockAndObserve(String id) {
			// The pid of the connection Hibernate itself uses for this transaction.
			int sessionPid = ((Number) this.entityManager.createNativeQuery("SELECT pg_backend_pid()")
				.getSingleResult()).intValue();
			List<Integer> holders = new PgLocks(TestDatabase.get().dataSource()).on(AdvisoryLockKeys.of("jpa", id))
				.stream()
				.filter(PgLocks.AdvisoryLock::granted)
				.map(PgLocks.AdvisoryLock::pid)
				.toList();
			return new Observation(sessionPid, holders);
		}

		record Observation(int sessionPid, List<Integer> holders) {

		}

	}

}
