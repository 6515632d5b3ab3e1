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
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.util.ClassUtils;

/**
 * Which annotated methods, and which values they return, may run their work after the
 * call has returned, when the lock no longer guards it: refused at startup where the
 * declared return type tells, checked at run time where it cannot.
 *
 * @author advisory-lock authors
 */
final class ReturnedWork {

	private static final String REACTIVE_STREAMS_PUBLISHER = "org.reactivestreams.Publisher";

	private static final String KOTLIN_CONTINUATION = "kotlin.coroutines.Continuation";

	private static final String MONO = "reactor.core.publisher.Mono";

	private static final String FLUX = "reactor.core.publisher.Flux";

	private static final String KOTLIN_FLOW = "kotlinx.coroutines.flow.Flow";

	/** What Spring probes before it bridges a suspend function or a {@code Flow}. */
	private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";

	private static final boolean coroutinesReactorPresent = ClassUtils.isPresent(COROUTINES_REACTOR,
			ReturnedWork.class.getClassLoader());

	private static final String COROUTINES_ADVICE = ": add org.jetbrains.kotlinx:kotlinx-coroutines-reactor to the "
			+ "application, with which Spring calls a suspend function as a Mono and adapts a Flow (docs/reactive.md)";

	private ReturnedWork() {
	}

	/**
	 * Validate that the work of a method is done when it returns: the lock ends with the
	 * transaction or the call, while a {@code CompletionStage}, {@code Future},
	 * {@code Publisher} or suspend function may run its work later, unguarded. Allowed: a
	 * {@code Future} behind {@link Async @Async}, whose lock is taken on the executor's
	 * thread (see {@link AdvisoryLockBeanPostProcessor}), and, where the reactive path is
	 * available, a {@code Mono}, {@code Flux}, suspend function or {@code Flow}, whose
	 * lock is taken at subscription.
	 * @param targetClass the target class, or {@code null} if unknown
	 * @param reactive whether the reactive path is available
	 * @throws IllegalStateException if its work may outlive the call
	 */
	static void validateWorkEndsWithTheCall(Method method, @Nullable Class<?> targetClass, boolean reactive) {
		Class<?> returnType = method.getReturnType();
		if (reactive && reactiveReturn(method) != null) {
			return;
		}
		boolean future = Future.class.isAssignableFrom(returnType);
		boolean stage = future || CompletionStage.class.isAssignableFrom(returnType);
		if (future && isAsync(method, targetClass)) {
			return;
		}
		String work;
		if (stage) {
			work = "it returns " + returnType.getSimpleName() + ", whose work";
		}
		else if (isPublisher(returnType)) {
			work = "it returns " + returnType.getSimpleName() + ", a reactive Publisher, whose work";
		}
		else if (isSuspendFunction(method)) {
			work = "it is a Kotlin suspend function, whose work";
		}
		else if (isOrExtends(returnType, KOTLIN_FLOW)) {
			work = "it returns " + returnType.getSimpleName() + ", a Kotlin Flow, whose work";
		}
		else {
			return;
		}
		// Of the methods that return a value, @Async runs only those returning a Future.
		throw AdvisoryLockAttributeValidator.invalid(method, work
				+ " may still run after the method has returned, and the lock ends with the "
				+ "transaction or the call, before that work runs, so it would guard nothing: return the value itself"
				+ (stage ? ", or put @Async on the method (declared to return a Future or CompletableFuture), so "
						+ "that the transaction and the lock are taken on the executor's thread around the whole work"
						: "")
				+ ", or take the lock inside the asynchronous work"
				+ (isReactorType(returnType) ? ". A method returning Mono or Flux takes its lock at subscription in "
						+ "the reactive transaction where the application has R2DBC: spring-r2dbc, the r2dbc-postgresql "
						+ "driver and a ConnectionFactory bean (docs/reactive.md)" : "")
				+ (isSuspendFunction(method) || isOrExtends(returnType, KOTLIN_FLOW)
						? kotlinAdvice(returnType, reactive) : ""));
	}

	private static String kotlinAdvice(Class<?> returnType, boolean reactive) {
		String subject = ". A Kotlin suspend function or a function returning Flow takes its lock at subscription "
				+ "in the reactive transaction";
		if (!reactive) {
			return subject + " where the application has R2DBC (spring-r2dbc, the r2dbc-postgresql driver and a "
					+ "ConnectionFactory bean) and kotlinx-coroutines-reactor (docs/reactive.md)";
		}
		if (!coroutinesReactorPresent) {
			return subject + COROUTINES_ADVICE;
		}
		// A SharedFlow or StateFlow: the lock's advice can return a Flow only.
		return subject + ": declare the function to return Flow rather than " + returnType.getSimpleName();
	}

	/**
	 * Return what a method whose lock is taken at subscription returns to the lock's
	 * advice (see {@link ReactiveReturn}). By name, so that neither Reactor nor Kotlin
	 * need be present.
	 * @return what it returns, or {@code null} if its lock cannot be taken at
	 * subscription
	 */
	static @Nullable ReactiveReturn reactiveReturn(Method method) {
		Class<?> returnType = method.getReturnType();
		if (isOrExtends(returnType, MONO)) {
			return ReactiveReturn.MONO;
		}
		if (isOrExtends(returnType, FLUX)) {
			return ReactiveReturn.FLUX;
		}
		if (!coroutinesReactorPresent) {
			return null;
		}
		if (isSuspendFunction(method)) {
			return KOTLIN_FLOW.equals(suspendReturnType(method).getName()) ? ReactiveReturn.FLUX : ReactiveReturn.MONO;
		}
		return returnType.getName().equals(KOTLIN_FLOW) ? ReactiveReturn.FLOW : null;
	}

	/**
	 * Return the type a Kotlin suspend function returns, as Spring's AOP tells it:
	 * {@code void} for {@code Unit}, and {@code Object} when {@code kotlin-reflect} is
	 * absent.
	 * @param method a suspend function
	 * @return the type of its value
	 */
	static Class<?> suspendReturnType(Method method) {
		return new MethodParameter(method, -1).getParameterType();
	}

	/**
	 * Return whether a Kotlin suspend function may return without running: it returns
	 * {@code Unit} or a nullable type, which {@code kotlin-reflect} tells.
	 * @param method a suspend function
	 * @return whether it may
	 */
	static boolean suspendReturnsNothingOrNullable(Method method) {
		MethodParameter returned = new MethodParameter(method, -1);
		return returned.getParameterType() == void.class || returned.isOptional();
	}

	private static boolean isReactorType(Class<?> type) {
		return isOrExtends(type, MONO) || isOrExtends(type, FLUX);
	}

	/**
	 * Return whether the value a method returns must be checked at run time for work that
	 * outlives the call: its declared type neither refuses it at startup nor rules it out
	 * ({@code Object}, {@code Serializable}, an interface or a class that a
	 * {@code CompletableFuture} or a {@code Publisher} could extend).
	 * @return whether to check what it returns
	 */
	static boolean checksReturnedWork(Method method) {
		Class<?> returnType = method.getReturnType();
		return !returnType.isPrimitive() && !Modifier.isFinal(returnType.getModifiers())
				&& !outlivesTheCall(returnType);
	}

	/**
	 * Return whether a value of a type may run its work after the call: a {@code Future},
	 * a {@code CompletionStage} or a reactive {@code Publisher}.
	 * @param type the type of a value
	 * @return whether it may
	 */
	static boolean outlivesTheCall(Class<?> type) {
		return Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type) || isPublisher(type);
	}

	private static boolean isPublisher(Class<?> type) {
		return Flow.Publisher.class.isAssignableFrom(type) || isOrExtends(type, REACTIVE_STREAMS_PUBLISHER);
	}

	private static boolean isAsync(Method method, @Nullable Class<?> targetClass) {
		return AnnotatedElementUtils.hasAnnotation(method, Async.class)
				|| AnnotatedElementUtils.hasAnnotation(method.getDeclaringClass(), Async.class)
				|| (targetClass != null && AnnotatedElementUtils.hasAnnotation(targetClass, Async.class));
	}

	/** By name, so that the named library need not be present. */
	private static boolean isOrExtends(@Nullable Class<?> type, String name) {
		if (type == null) {
			return false;
		}
		if (type.getName().equals(name) || isOrExtends(type.getSuperclass(), name)) {
			return true;
		}
		for (Class<?> implemented : type.getInterfaces()) {
			if (isOrExtends(implemented, name)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return whether a method is a Kotlin suspend function: its last parameter is a
	 * {@code Continuation}, checked by name so Kotlin need not be present.
	 */
	static boolean isSuspendFunction(Method method) {
		Class<?>[] parameterTypes = method.getParameterTypes();
		return parameterTypes.length > 0
				&& parameterTypes[parameterTypes.length - 1].getName().equals(KOTLIN_CONTINUATION);
	}

	/** What the lock's advice returns for a method locked at subscription. */
	enum ReactiveReturn {

		/** A {@code Mono}: declared, or what Spring's AOP calls a suspend function as. */
		MONO,

		/** A {@code Flux}: declared, or a suspend function returning a {@code Flow}. */
		FLUX,

		/** A Kotlin {@code Flow}, adapted by Spring's {@code ReactiveAdapterRegistry}. */
		FLOW

	}

}
