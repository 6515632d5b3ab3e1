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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.KotlinDetector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.RepeatableContainers;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * The rules an {@link AdvisoryLocked @AdvisoryLocked} method must keep, checked once,
 * when its bean is proxied, so that misuse fails at startup naming the method and what to
 * do, rather than at the first call or silently.
 *
 * @author advisory-lock authors
 */
class AdvisoryLockAttributeValidator {

	/** What a method under {@code WaitMode.SKIP} can return when it did not run. */
	private static final Set<Class<?>> SKIPPABLE_RETURN_TYPES = Set.of(void.class, Void.class, Optional.class);

	private static final String REACTOR_MONO = "reactor.core.publisher.Mono";

	private final LockKeyExpressionEvaluator evaluator;

	private @Nullable Boolean reactiveAvailable;

	private final @Nullable StringValueResolver valueResolver;

	private final @Nullable ListableBeanFactory beanFactory;

	/**
	 * Create a validator.
	 * @param evaluator parses the key expressions, so that a bad one fails at startup
	 * @param valueResolver resolves {@code ${...}} placeholders, or {@code null}
	 * @param beanFactory checks {@code dataSource} names, or {@code null}
	 */
	AdvisoryLockAttributeValidator(LockKeyExpressionEvaluator evaluator, @Nullable StringValueResolver valueResolver,
			@Nullable BeanFactory beanFactory) {
		this.evaluator = evaluator;
		this.valueResolver = valueResolver;
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	/**
	 * Return whether a method carries the annotation, directly or through a composed one,
	 * and is neither a bridge nor synthetic.
	 * @return whether it is an annotated method
	 */
	static boolean isAnnotated(Method method) {
		return !method.isBridge() && !method.isSynthetic()
				&& AnnotatedElementUtils.hasAnnotation(method, AdvisoryLocked.class);
	}

	/**
	 * Validate that a proxy can intercept an annotated method.
	 * @throws IllegalStateException if it is private, static or final
	 */
	void validateInterceptable(Method method) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
			throw invalid(method,
					"a proxy cannot intercept a "
							+ Modifier.toString(modifiers & (Modifier.PRIVATE | Modifier.STATIC | Modifier.FINAL))
							+ " method, so the lock would never be taken: make it "
							+ "public (or protected) and neither static nor final");
		}
	}

	/**
	 * Validate that no method of the hierarchy carries the annotation twice (directly and
	 * composed, or through two composed ones): only one would apply, and the other lock
	 * would be dropped silently. An annotated override is not a second one: the nearest
	 * applies.
	 * @throws IllegalStateException naming the method and its annotations
	 */
	void validateDeclaredOnce(Method method) {
		Map<Integer, List<MergedAnnotation<AdvisoryLocked>>> byDeclaration = MergedAnnotations
			.from(method, SearchStrategy.TYPE_HIERARCHY, RepeatableContainers.none())
			.stream(AdvisoryLocked.class)
			.collect(Collectors.groupingBy(MergedAnnotation::getAggregateIndex, LinkedHashMap::new,
					Collectors.toList()));
		for (List<MergedAnnotation<AdvisoryLocked>> declared : byDeclaration.values()) {
			if (declared.size() > 1) {
				Method declaring = (declared.get(0).getSource() instanceof Method source) ? source : method;
				List<String> names = declared.stream().map(AdvisoryLockAttributeValidator::describe).toList();
				throw invalid(declaring,
						"it carries @AdvisoryLocked " + ((names.size() == 2) ? "twice" : names.size() + " times")
								+ ", so one lock would be silently dropped: " + String.join(" and ", names)
								+ "; keep one: name the keys of one namespace in one "
								+ "annotation (key = { \"#from\", \"#to\" }), or take the other lock with "
								+ "AdvisoryLockOperations inside the method");
			}
		}
	}

	private static String describe(MergedAnnotation<AdvisoryLocked> annotation) {
		Class<?> declared = annotation.getRoot().getType();
		return (declared == AdvisoryLocked.class) ? "@AdvisoryLocked"
				: "@" + ClassUtils.getShortName(declared) + " (meta-annotated with @AdvisoryLocked)";
	}

	/**
	 * Validate the annotation of a method.
	 * @param method the annotated method, as declared on the target class
	 * @param targetClass the target class, or {@code null} if unknown
	 * @param annotation the annotation that applies to it, merged from a composed one
	 * where there is one
	 * @throws IllegalStateException naming the method and the problem
	 */
	void validate(Method method, @Nullable Class<?> targetClass, AdvisoryLocked annotation) {
		try {
			// The request's rules for a namespace are the annotation's.
			LockRequest.of(annotation.namespace());
		}
		catch (IllegalArgumentException ex) {
			throw invalid(method, ex.getMessage(), ex);
		}
		if (annotation.key().length == 0) {
			throw invalid(method, "key must name at least one SpEL expression, for example key = \"#userId\"");
		}
		for (String expression : annotation.key()) {
			if (expression.isBlank()) {
				throw invalid(method, "key expressions must not be blank");
			}
			try {
				this.evaluator.validate(expression, method, targetClass);
			}
			catch (RuntimeException ex) {
				throw invalid(method, "key expression '" + expression + "' is invalid: " + ex.getMessage(), ex);
			}
		}
		boolean reactive = reactiveAvailable() && ReturnedWork.reactiveReturn(method) != null;
		ReturnedWork.validateWorkEndsWithTheCall(method, targetClass, reactiveAvailable());
		boolean suspending = ReturnedWork.isSuspendFunction(method);
		if (annotation.waitMode() == WaitMode.SKIP && reactive && suspending
				&& !ReturnedWork.suspendReturnsNothingOrNullable(method)) {
			String returned = ReturnedWork.suspendReturnType(method).getSimpleName();
			throw invalid(method, "waitMode SKIP returns without running the function when the lock is held, so a "
					+ "suspend function must return Unit or a nullable type, and it returns " + returned
					+ (KotlinDetector.isKotlinReflectPresent() ? ": declare it to return " + returned + "?"
							: " as far as can be told without kotlin-reflect, which tells whether it is nullable: "
									+ "add org.jetbrains.kotlin:kotlin-reflect")
					+ ", or use waitMode TRY, which throws LockBusyException instead");
		}
		if (annotation.waitMode() == WaitMode.SKIP && !reactive
				&& !SKIPPABLE_RETURN_TYPES.contains(method.getReturnType())) {
			throw invalid(method,
					"waitMode SKIP returns without running the method when the lock is held, "
							+ "so the method must return void or Optional, and it returns "
							+ method.getReturnType().getSimpleName() + ": return Optional<"
							+ ClassUtils.resolvePrimitiveIfNecessary(method.getReturnType()).getSimpleName()
							+ ">, or use waitMode TRY, which throws LockBusyException instead");
		}
		if (!annotation.dataSource().isEmpty() && annotation.dataSource().isBlank()) {
			throw invalid(method, "dataSource must name a DataSource bean, or be left empty for the one of "
					+ "the current transaction");
		}
		validateDataSourceName(method, annotation.dataSource(), reactive);
	}

	/**
	 * Return whether reactive methods have a reactive path: Reactor is on the class path
	 * and the application has a {@code ReactiveAdvisoryLockOperations} bean.
	 * @return whether they do
	 */
	boolean reactiveAvailable() {
		Boolean available = this.reactiveAvailable;
		if (available == null) {
			ListableBeanFactory beanFactory = this.beanFactory;
			ClassLoader classLoader = getClass().getClassLoader();
			available = beanFactory != null && ClassUtils.isPresent(REACTOR_MONO, classLoader)
					&& beanFactory.getBeanNamesForType(ReactiveAdvisoryLockOperations.class, true, false).length > 0;
			this.reactiveAvailable = available;
		}
		return available;
	}

	/**
	 * Validate that a {@code dataSource} name is a {@code DataSource} bean's, where the
	 * bean factory can tell; the lock operations check it again at each call.
	 */
	private void validateDataSourceName(Method method, String name, boolean reactive) {
		ListableBeanFactory beanFactory = this.beanFactory;
		if (name.isEmpty() || beanFactory == null) {
			return;
		}
		if (reactive) {
			// An R2DBC ConnectionFactory's name, checked at each call only.
			return;
		}
		if (!beanFactory.containsBean(name) || !beanFactory.isTypeMatch(name, DataSource.class)) {
			throw invalid(method,
					"dataSource '" + name + "' is no DataSource bean; name one of "
							+ Arrays.toString(beanFactory.getBeanNamesForType(DataSource.class, true, false))
							+ ", or leave it empty for the one of the current transaction");
		}
	}

	/**
	 * Parse and validate the timeout of an annotation.
	 * @return the timeout, or {@code null} for the configured default
	 * @throws IllegalStateException if the timeout is not a valid one for the wait mode
	 */
	@Nullable Duration timeout(Method method, AdvisoryLocked annotation) {
		String text = annotation.timeout();
		if (text.isEmpty()) {
			return null;
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
		try {
			// The request's rules for a timeout are the annotation's.
			LockRequest.of(annotation.namespace()).withWaitMode(annotation.waitMode()).withTimeout(timeout);
		}
		catch (IllegalArgumentException ex) {
			String problem = String.valueOf(ex.getMessage());
			throw invalid(method,
					problem.contains("'" + text + "'") ? problem : problem + " (timeout = \"" + text + "\")", ex);
		}
		return timeout;
	}

	/**
	 * Parse and validate the number of permits of an annotation.
	 * @return the number of permits, 1 for a plain lock
	 * @throws IllegalStateException if it is no number, out of range, or a limit of a
	 * shared lock or of several keys
	 */
	int permits(Method method, AdvisoryLocked annotation) {
		String text = annotation.permitsString();
		int permits = annotation.permits();
		// Read as Spring reads @ConcurrencyLimit(limitString): blank means the number,
		// and the resolved text is parsed as it is.
		if (StringUtils.hasText(text)) {
			if (permits != 1) {
				throw invalid(method, "permits = " + permits + " and permitsString \"" + text + "\" both set the "
						+ "number of permits: keep one");
			}
			try {
				String resolved = (this.valueResolver != null) ? this.valueResolver.resolveStringValue(text) : text;
				if (StringUtils.hasText(resolved)) {
					permits = Integer.parseInt(resolved);
				}
			}
			catch (IllegalArgumentException ex) {
				// NumberFormatException, or a placeholder that does not resolve.
				throw invalid(method, "permitsString \"" + text + "\" is not a whole number (" + ex.getMessage()
						+ "): write a number of permits, or a ${...} placeholder that resolves to one", ex);
			}
		}
		String given = !StringUtils.hasText(text) ? "permits = " + permits
				: "permitsString \"" + text + "\" (" + permits + ")";
		try {
			// The request's rules for permits are the annotation's.
			LockRequest.of(annotation.namespace()).withMode(annotation.mode()).withPermits(permits);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(method, given + ": " + ex.getMessage(), ex);
		}
		if (permits > 1 && annotation.key().length > 1) {
			throw invalid(method, given + " limits the calls on one resource, and key names " + annotation.key().length
					+ " expressions: give one key expression, or take a plain lock (permits = 1) on several");
		}
		return permits;
	}

	/**
	 * Validate that every annotated method of a class proxied through its interfaces is
	 * declared by one of them: a JDK proxy sees no other method, so a call to it would
	 * run without its lock.
	 * @param targetClass the class of a bean
	 * @param interfaces the interfaces its proxy implements
	 * @throws IllegalStateException naming the first method no interface declares
	 */
	void validateProxiedInterfaces(Class<?> targetClass, Class<?>[] interfaces) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		if (!AnnotationUtils.isCandidateClass(userClass, AdvisoryLocked.class)) {
			return;
		}
		ReflectionUtils.doWithMethods(userClass, (method) -> {
			for (Class<?> candidate : interfaces) {
				for (Method declared : candidate.getMethods()) {
					// Resolves a generic run(T) to its implementation run(String).
					if (AopUtils.getMostSpecificMethod(declared, userClass).equals(method)) {
						return;
					}
				}
			}
			throw invalid(method, "the bean is proxied through its interfaces (spring.aop.proxy-target-class=false) "
					+ "and none of them declares this method, so its calls would never be intercepted: declare it on "
					+ "an interface, or let Spring proxy the class");
		}, (method) -> isAnnotated(method) && !Modifier.isStatic(method.getModifiers()));
	}

	static IllegalStateException invalid(Method method, String problem) {
		return new IllegalStateException("Invalid @AdvisoryLocked on " + describe(method) + ": " + problem);
	}

	private static IllegalStateException invalid(Method method, String problem, Throwable cause) {
		return new IllegalStateException("Invalid @AdvisoryLocked on " + describe(method) + ": " + problem, cause);
	}

	/**
	 * Describe a method for error messages:
	 * {@code com.example.SetupService.create(UUID)}.
	 * @return its description
	 */
	static String describe(Method method) {
		return method.getDeclaringClass().getName() + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes())
					.map(Class::getSimpleName)
					.collect(Collectors.joining(", ", "(", ")"));
	}

}
