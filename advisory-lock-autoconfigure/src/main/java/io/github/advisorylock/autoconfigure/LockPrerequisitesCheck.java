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

import java.lang.reflect.Method;
import java.util.Set;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.interceptor.AdvisoryLockBeanPostProcessor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Fails the startup of an application that uses advisory locks but lacks what they need, rather than let its
 * {@link AdvisoryLocked @AdvisoryLocked} methods run unlocked. What is needed, and what to add, is
 * {@link LockPrerequisite}'s.
 *
 * <p>The application uses the locks when:
 * <ul>
 * <li>a bean has an {@code @AdvisoryLocked} method (declared on its class or on a type it inherits from), unless
 * {@code advisory-lock.annotation.enabled} is {@code false}: checked as each bean is created;</li>
 * <li>a singleton bean has {@link AdvisoryLockOperations} injected: checked once the singletons are created, for a
 * missing PostgreSQL driver. Where the auto-configuration backed off, there is no such bean to inject, and Spring's
 * own unsatisfied dependency fails the startup first; {@link MissingLockPrerequisiteFailureAnalyzer} reports it.</li>
 * </ul>
 * An application that does neither (the starter on the class path of an application on another database, say)
 * starts as before. Everything is decided from the class path and the bean definitions: no connection is made.
 *
 * @author advisory-lock authors
 */
final class LockPrerequisitesCheck implements BeanPostProcessor, SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	private final boolean annotationEnabled;

	private @Nullable Set<LockPrerequisite> missing;

	/**
	 * Create a check.
	 * @param beanFactory the application's bean factory
	 * @param annotationEnabled whether {@code @AdvisoryLocked} methods are to be intercepted
	 */
	LockPrerequisitesCheck(ConfigurableListableBeanFactory beanFactory, boolean annotationEnabled) {
		this.beanFactory = beanFactory;
		this.annotationEnabled = annotationEnabled;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		// Before initialization: ahead of the post processors that proxy the bean, for @Transactional say.
		if (!this.annotationEnabled) {
			return bean;
		}
		Class<?> type = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		Method annotated = AdvisoryLockBeanPostProcessor.findAnnotatedMethod(type);
		if (annotated != null && !missing().isEmpty()) {
			throw new MissingLockPrerequisiteException("Method " + ClassUtils.getQualifiedMethodName(annotated, type)
					+ " of bean '" + beanName + "' is annotated with @AdvisoryLocked", missing());
		}
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (!missing().contains(LockPrerequisite.POSTGRESQL_DRIVER)) {
			return;
		}
		for (String operations : this.beanFactory.getBeanNamesForType(AdvisoryLockOperations.class, true, false)) {
			String[] users = this.beanFactory.getDependentBeans(operations);
			if (users.length > 0) {
				throw new MissingLockPrerequisiteException(
						"Bean '" + users[0] + "' has AdvisoryLockOperations injected", missing());
			}
		}
	}

	private Set<LockPrerequisite> missing() {
		Set<LockPrerequisite> missing = this.missing;
		if (missing == null) {
			// Every bean definition is known once post processors are created; once is enough.
			missing = LockPrerequisite.missing(this.beanFactory);
			// What decides is whether the annotation's interceptor is there; the list above only says why not.
			if (this.annotationEnabled && !LockPrerequisite.backsOff(missing) && this.beanFactory
				.getBeanNamesForType(AdvisoryLockBeanPostProcessor.class, true, false).length == 0) {
				missing.add(LockPrerequisite.AUTO_CONFIGURATION);
			}
			this.missing = missing;
		}
		return missing;
	}

}
