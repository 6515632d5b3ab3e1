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
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds, parses and validates {@link AdvisoryLocked @AdvisoryLocked} once per method and target class; the pointcut
 * and the interceptor both ask it.
 *
 * @author advisory-lock authors
 */
class AdvisoryLockAttributeSource {

	/** What a method under {@code WaitMode.SKIP} can return when it did not run. */
	private static final Set<Class<?>> SKIPPABLE_RETURN_TYPES = Set.of(void.class, Void.class, Optional.class);

	private final Map<MethodClassKey, Optional<AdvisoryLockAttribute>> cache = new ConcurrentHashMap<>(256);

	private final Set<Class<?>> validated = ConcurrentHashMap.newKeySet();

	private final LockKeyExpressionEvaluator evaluator;

	private final @Nullable StringValueResolver valueResolver;

	/**
	 * Create a new source.
	 * @param evaluator parses the key expressions, so that a bad one fails at startup
	 * @param valueResolver resolves {@code ${...}} placeholders in timeouts, or {@code null} for none
	 */
	AdvisoryLockAttributeSource(LockKeyExpressionEvaluator evaluator, @Nullable StringValueResolver valueResolver) {
		this.evaluator = evaluator;
		this.valueResolver = valueResolver;
	}

	/**
	 * Return whether a class may have annotated methods at all, a cheap filter before looking at its methods.
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
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		return this.cache.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> Optional.ofNullable(parse(method, targetClass)))
			.orElse(null);
	}

	/**
	 * Validate every annotated method of a class, so that misuse fails at startup rather than at the first call, or
	 * silently, where a proxy cannot intercept the method.
	 * @param targetClass the class of a bean
	 * @throws IllegalStateException naming the first invalid method
	 */
	void validate(Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		if (!isCandidateClass(userClass) || this.validated.contains(userClass)) {
			return;
		}
		ReflectionUtils.doWithMethods(userClass, (method) -> {
			int modifiers = method.getModifiers();
			if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
				throw invalid(method, "a proxy cannot intercept a " + Modifier.toString(modifiers & (Modifier.PRIVATE
						| Modifier.STATIC | Modifier.FINAL)) + " method, so the lock would never be taken: make it "
						+ "public (or protected) and neither static nor final");
			}
			getAttribute(method, userClass);
		}, (method) -> !method.isBridge() && !method.isSynthetic()
				&& AnnotatedElementUtils.hasAnnotation(method, AdvisoryLocked.class));
		this.validated.add(userClass);
	}

	/**
	 * Validate that every annotated method of a class proxied through its interfaces is declared by one of them: a
	 * JDK proxy sees no other method, so a call to it would run without its lock.
	 * @param targetClass the class of a bean
	 * @param interfaces the interfaces its proxy implements
	 * @throws IllegalStateException naming the first method no interface declares
	 */
	void validateProxiedInterfaces(Class<?> targetClass, Class<?>[] interfaces) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		if (!isCandidateClass(userClass)) {
			return;
		}
		ReflectionUtils.doWithMethods(userClass, (method) -> {
			for (Class<?> candidate : interfaces) {
				for (Method declared : candidate.getMethods()) {
					// Resolves generic interface methods (run(T)) to their implementation (run(String)).
					if (AopUtils.getMostSpecificMethod(declared, userClass).equals(method)) {
						return;
					}
				}
			}
			throw invalid(method, "the bean is proxied through its interfaces (spring.aop.proxy-target-class=false) "
					+ "and none of them declares this method, so its calls would never be intercepted: declare it on "
					+ "an interface, or let Spring proxy the class");
		}, (method) -> !method.isBridge() && !method.isSynthetic() && !Modifier.isStatic(method.getModifiers())
				&& AnnotatedElementUtils.hasAnnotation(method, AdvisoryLocked.class));
	}

	private @Nullable AdvisoryLockAttribute parse(Method method, @Nullable Class<?> targetClass) {
		Method specificMethod = AopUtils.getMostSpecificMethod(method, targetClass);
		AdvisoryLocked annotation = AnnotatedElementUtils.findMergedAnnotation(specificMethod, AdvisoryLocked.class);
		if (annotation == null && specificMethod != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, AdvisoryLocked.class);
		}
		if (annotation == null) {
			return null;
		}
		if (annotation.namespace().isBlank()) {
			throw invalid(specificMethod, "namespace must not be blank; name the guarded rule, for example "
					+ "namespace = \"setup_request\"");
		}
		if (annotation.key().length == 0) {
			throw invalid(specificMethod, "key must name at least one SpEL expression, for example key = \"#userId\"");
		}
		for (String expression : annotation.key()) {
			if (expression.isBlank()) {
				throw invalid(specificMethod, "key expressions must not be blank");
			}
			try {
				this.evaluator.validate(expression, specificMethod, targetClass);
			}
			catch (RuntimeException ex) {
				throw invalid(specificMethod, "key expression '" + expression + "' is invalid: " + ex.getMessage(),
						ex);
			}
		}
		if (annotation.waitMode() == WaitMode.SKIP && !SKIPPABLE_RETURN_TYPES.contains(specificMethod.getReturnType())) {
			throw invalid(specificMethod, "waitMode SKIP returns without running the method when the lock is held, "
					+ "so the method must return void or Optional, and it returns "
					+ specificMethod.getReturnType().getSimpleName() + ": return Optional<"
					+ ClassUtils.resolvePrimitiveIfNecessary(specificMethod.getReturnType()).getSimpleName()
					+ ">, or use waitMode TRY, which throws LockBusyException instead");
		}
		if (!annotation.dataSource().isEmpty() && annotation.dataSource().isBlank()) {
			throw invalid(specificMethod, "dataSource must name a DataSource bean, or be left empty for the one of "
					+ "the current transaction");
		}
		List<Integer> parameterIndexes = Arrays.stream(annotation.key())
			.map((expression) -> this.evaluator.parameterIndex(expression, specificMethod))
			.toList();
		return new AdvisoryLockAttribute(specificMethod, annotation.namespace(), List.of(annotation.key()),
				parameterIndexes, annotation.mode(), annotation.waitMode(), timeout(specificMethod, annotation),
				annotation.scope(), annotation.dataSource().isEmpty() ? null : annotation.dataSource());
	}

	private @Nullable Duration timeout(Method method, AdvisoryLocked annotation) {
		String text = annotation.timeout();
		if (text.isEmpty()) {
			return null;
		}
		if (annotation.waitMode() != WaitMode.BLOCK) {
			throw invalid(method, "timeout '" + text + "' has no meaning for waitMode " + annotation.waitMode()
					+ ", which never waits: remove it, or use waitMode BLOCK");
		}
		Duration timeout;
		try {
			String resolved = (this.valueResolver != null) ? this.valueResolver.resolveStringValue(text) : text;
			timeout = DurationFormatterUtils.detectAndParse((resolved != null) ? resolved.trim() : "");
		}
		catch (IllegalArgumentException | DateTimeParseException ex) {
			throw invalid(method, "timeout '" + text + "' is not a duration (" + ex.getMessage() + "): write it as "
					+ "\"200ms\", \"2s\", \"PT2S\" or a ${...} placeholder that resolves to one", ex);
		}
		if (!LockRequest.isValidTimeout(timeout)) {
			throw invalid(method, "timeout '" + text + "' must be positive and at most "
					+ LockRequest.MAX_TIMEOUT.toMillis() + "ms (PostgreSQL's lock_timeout range; 0 would wait forever)");
		}
		return timeout;
	}

	static IllegalStateException invalid(Method method, String problem) {
		return new IllegalStateException("Invalid @AdvisoryLocked on " + describe(method) + ": " + problem);
	}

	private static IllegalStateException invalid(Method method, String problem, Throwable cause) {
		return new IllegalStateException("Invalid @AdvisoryLocked on " + describe(method) + ": " + problem, cause);
	}

	/**
	 * Describe a method for error messages: {@code com.example.SetupService.create(UUID)}.
	 * @param method the method
	 * @return its description
	 */
	static String describe(Method method) {
		return method.getDeclaringClass().getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
	}

}
