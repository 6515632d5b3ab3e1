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

package io.github.advisorylock.autoconfigure;

import java.util.Set;

import io.github.advisorylock.AdvisoryLockOperations;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Fails the startup of an application whose singleton beans have
 * {@link AdvisoryLockOperations} injected while the PostgreSQL JDBC driver is missing.
 * Where the auto-configuration backed off there is no such bean, and
 * {@link MissingLockPrerequisiteFailureAnalyzer} reports Spring's unsatisfied dependency
 * instead. {@link LockPrerequisitesCheck} checks an {@code @AdvisoryLocked} method.
 *
 * @author advisory-lock authors
 */
final class InjectedOperationsCheck implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	InjectedOperationsCheck(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Set<LockPrerequisite> missing = LockPrerequisite.missing(this.beanFactory);
		if (!missing.contains(LockPrerequisite.POSTGRESQL_DRIVER)) {
			return;
		}
		for (String operations : this.beanFactory.getBeanNamesForType(AdvisoryLockOperations.class, true, false)) {
			String[] users = this.beanFactory.getDependentBeans(operations);
			if (users.length > 0) {
				throw new MissingLockPrerequisiteException(
						"Bean '" + users[0] + "' has AdvisoryLockOperations injected", missing);
			}
		}
	}

}
