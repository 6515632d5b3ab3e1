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

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.advisorylock.AdvisoryLocked;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds and parses {@link AdvisoryLocked @AdvisoryLocked} once per method and target
 * class, validated by an {@link AdvisoryLockAttributeValidator}; the pointcut and the
 * interceptor both ask it.
 *
 * @author advisory-lock authors
 */
class AdvisoryLockAttributeSource {

	private final Map<MethodClassKey, Optional<AdvisoryLockAttribute>> cache = new ConcurrentHashMap<>(256);

	private final Set<Class<?>> validated = ConcurrentHashMap.newKeySet();

	private final LockKeyExpressionEvaluator evaluator;

	private final AdvisoryLockAttributeValidator validator;

	/**
	 * Create a new source.
	 * @param evaluator tells which key expressions merely name a parameter
	 * @param validator validates each annotation when it is parsed
	 */
	AdvisoryLockAttributeSource(LockKeyExpressionEvaluator evaluator, AdvisoryLockAttributeValidator validator) {
		this.evaluator = evaluator;
		this.validator = validator;
	}

	/** Return the validator of the annotations this source parses. */
	AdvisoryLockAttributeValidator getValidator() {
		return this.validator;
	}

	/**
	 * Return whether a class may have annotated methods: a cheap filter.
	 * @param targetClass the class
	 * @return {@code false} if it certainly has none
	 */
	boolean isCandidateClass(Class<?> targetClass) {
		return AnnotationUtils.isCandidateClass(targetClass, AdvisoryLocked.class);
	}

	/**
	 * Return the attribute of a method invoked on a target class.
	 * @param method the method, possibly from an interface
	 * @param targetClass the target class, or {@code null} if unknown
	 * @return the attribute, or {@code null} if the method is not annotated
	 * @throws IllegalStateException if the annotation is invalid
	 */
	@Nullable AdvisoryLockAttribute getAttribute(Method method, @Nullable Class<?> targetClass) {
		// No proxy calls a static method: an annotated one is refused by validate, and
		// Kotlin copies a suspend function's annotations to its static $suspendImpl.
		if (method.getDeclaringClass() == Object.class || Modifier.isStatic(method.getModifiers())) {
			return null;
		}
		return this.cache
			.computeIfAbsent(new MethodClassKey(method, targetClass),
					(key) -> Optional.ofNullable(parse(method, targetClass)))
			.orElse(null);
	}

	/**
	 * Parse and validate every annotated method of a class, so that misuse fails at
	 * startup, also where a proxy cannot intercept the method.
	 * @param targetClass the class of a bean
	 * @throws IllegalStateException naming the first invalid method
	 */
	void validate(Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		if (!isCandidateClass(userClass) || this.validated.contains(userClass)) {
			return;
		}
		ReflectionUtils.doWithMethods(userClass, (method) -> {
			this.validator.validateInterceptable(method);
			getAttribute(method, userClass);
		}, AdvisoryLockAttributeValidator::isAnnotated);
		this.validated.add(userClass);
	}

	private @Nullable AdvisoryLockAttribute parse(Method method, @Nullable Class<?> targetClass) {
		Method specificMethod = AopUtils.getMostSpecificMethod(method, targetClass);
		Method annotated = specificMethod;
		AdvisoryLocked annotation = AnnotatedElementUtils.findMergedAnnotation(specificMethod, AdvisoryLocked.class);
		if (annotation == null && specificMethod != method) {
			annotated = method;
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, AdvisoryLocked.class);
		}
		if (annotation == null) {
			return null;
		}
		this.validator.validateDeclaredOnce(annotated);
		this.validator.validate(specificMethod, targetClass, annotation);
		List<Integer> parameterIndexes = Arrays.stream(annotation.key())
			.map((expression) -> this.evaluator.parameterIndex(expression, specificMethod))
			.toList();
		return new AdvisoryLockAttribute(specificMethod, annotation.namespace(), List.of(annotation.key()),
				parameterIndexes, annotation.mode(), annotation.waitMode(),
				this.validator.timeout(specificMethod, annotation), annotation.scope(),
				annotation.dataSource().isEmpty() ? null : annotation.dataSource(),
				ReturnedWork.checksReturnedWork(specificMethod),
				this.validator.reactiveAvailable() ? ReturnedWork.reactiveReturn(specificMethod) : null,
				"@AdvisoryLocked " + AdvisoryLockAttributeValidator.describe(specificMethod),
				this.validator.permits(specificMethod, annotation));
	}

}
