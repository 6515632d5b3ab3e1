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
import java.util.EnumSet;
import java.util.Set;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.interceptor.AdvisoryLockBeanPostProcessor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Fails the startup of an application that has an {@link AdvisoryLocked @AdvisoryLocked}
 * method but lacks what advisory locks need, rather than let the method run unlocked;
 * each bean is checked as it is created. What is needed, and what to add, is
 * {@link LockPrerequisite}'s.
 *
 * <p>
 * Registered only where the interception's condition on
 * {@code advisory-lock.annotation.enabled} matches, so that an application that turned
 * the annotation off starts as before. {@link InjectedOperationsCheck} checks an injected
 * {@link AdvisoryLockOperations}.
 *
 * @author advisory-lock authors
 */
final class LockPrerequisitesCheck implements BeanPostProcessor {

	private final ConfigurableListableBeanFactory beanFactory;

	private @Nullable Set<LockPrerequisite> missing;

	LockPrerequisitesCheck(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		// Before initialization: ahead of the post processors that proxy the bean.
		Class<?> type = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
		// A method that locks through JDBC needs the JDBC prerequisites; one that returns
		// Mono or Flux needs the interception, which the R2DBC auto-configuration also
		// defines, and the validation of the method says what else it lacks.
		Method blocking = AdvisoryLockBeanPostProcessor.findBlockingAnnotatedMethod(type);
		if (blocking != null && !missing().isEmpty()) {
			throw missing(blocking, type, beanName, missing());
		}
		Method annotated = (blocking != null) ? null : AdvisoryLockBeanPostProcessor.findAnnotatedMethod(type);
		if (annotated != null && !intercepted()) {
			throw missing(annotated, type, beanName, EnumSet.of(LockPrerequisite.R2DBC));
		}
		return bean;
	}

	private static MissingLockPrerequisiteException missing(Method annotated, Class<?> type, String beanName,
			Set<LockPrerequisite> missing) {
		return new MissingLockPrerequisiteException("Method " + ClassUtils.getQualifiedMethodName(annotated, type)
				+ " of bean '" + beanName + "' is annotated with @AdvisoryLocked", missing);
	}

	private boolean intercepted() {
		return this.beanFactory.getBeanNamesForType(AdvisoryLockBeanPostProcessor.class, true, false).length > 0;
	}

	private Set<LockPrerequisite> missing() {
		Set<LockPrerequisite> missing = this.missing;
		if (missing == null) {
			// Bean definitions are complete once post processors exist: read them once.
			missing = LockPrerequisite.missing(this.beanFactory);
			// What decides is whether the annotation's interceptor is there; the list
			// above only says why not.
			if (!LockPrerequisite.backsOff(missing) && !intercepted()) {
				missing.add(LockPrerequisite.AUTO_CONFIGURATION);
			}
			this.missing = missing;
		}
		return missing;
	}

}
