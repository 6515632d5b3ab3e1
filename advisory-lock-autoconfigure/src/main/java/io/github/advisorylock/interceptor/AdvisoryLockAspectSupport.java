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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.InvalidLockKeyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.util.function.SingletonSupplier;

/**
 * The flow behind {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked}, free of
 * AOP types: resolve the annotation, evaluate the keys, acquire the locks through
 * {@link AdvisoryLockOperations}, then proceed. {@link AdvisoryLockInterceptor} adapts it
 * to AOP Alliance.
 *
 * <p>
 * Every rule on key values is the lock operations': the request names the method and its
 * key expressions ({@link LockRequest#withCaller}), so what they refuse names them.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockAspectSupport {

	/** Whether returned values of a class outlive the call; found once per class. */
	private static final ClassValue<Boolean> OUTLIVES_THE_CALL = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			return ReturnedWork.outlivesTheCall(type);
		}

	};

	private static final String MUST_NAME_A_RESOURCE = "; a key expression must give the resource to lock for every "
			+ "call, before the method runs";

	private final Supplier<AdvisoryLockOperations> operations;

	private final Supplier<ReactiveAdvisoryLockOperations> reactiveOperations;

	private final AdvisoryLockAttributeSource attributeSource;

	private final LockKeyExpressionEvaluator evaluator;

	/**
	 * Create the support.
	 * @param operations supplies the lock operations, looked up at the first call so that
	 * creating the interceptor does not initialize the data source early
	 * @param attributeSource finds the annotation of a method, parsed and validated once
	 * @param evaluator evaluates the key expressions of a call
	 */
	AdvisoryLockAspectSupport(Supplier<AdvisoryLockOperations> operations,
			Supplier<ReactiveAdvisoryLockOperations> reactiveOperations, AdvisoryLockAttributeSource attributeSource,
			LockKeyExpressionEvaluator evaluator) {
		this.operations = SingletonSupplier.of(operations);
		this.reactiveOperations = SingletonSupplier.of(reactiveOperations);
		this.attributeSource = attributeSource;
		this.evaluator = evaluator;
	}

	/**
	 * Lock for the method if it is annotated, then proceed.
	 * @param method the invoked method
	 * @param targetClass the class of the target, or {@code null} if unknown
	 * @param target the target object, or {@code null}
	 * @param args the arguments
	 * @param invocation proceeds with the method
	 * @return what the method returned
	 * @throws Throwable what the method threw, or the lock failure before the method ran
	 */
	protected @Nullable Object execute(Method method, @Nullable Class<?> targetClass, @Nullable Object target,
			@Nullable Object[] args, Invocation invocation) throws Throwable {
		AdvisoryLockAttribute attribute = this.attributeSource.getAttribute(method, targetClass);
		if (attribute == null) {
			return invocation.proceed();
		}
		List<@Nullable Object> keys = keys(attribute, targetClass, target, args);
		LockRequest request = new LockRequest(attribute.namespace(), keys, attribute.mode(), attribute.waitMode(),
				attribute.timeout(), attribute.scope(), attribute.dataSource(), attribute.caller(),
				attribute.keyExpressions(), attribute.permits());
		ReturnedWork.ReactiveReturn reactive = attribute.reactive();
		if (reactive != null) {
			return ReactiveLockedCall.locked(this.reactiveOperations.get(), request, reactive,
					attribute.method().getReturnType(), invocation.repeatable());
		}
		if (request.scope() == LockScope.TRANSACTION && request.waitMode() != WaitMode.SKIP) {
			this.operations.get().lock(request);
			return checkReturned(attribute, invocation.proceed());
		}
		LockResult<@Nullable Object> result;
		try {
			result = this.operations.get().execute(request, (handle) -> {
				try {
					return invocation.proceed();
				}
				catch (Throwable ex) {
					throw new BodyFailure(ex);
				}
			});
		}
		catch (BodyFailure ex) {
			// The method's own exception, with a loss of the lock suppressed in it.
			Throwable failure = ex.getCause();
			for (Throwable suppressed : ex.getSuppressed()) {
				failure.addSuppressed(suppressed);
			}
			throw failure;
		}
		if (result.executed()) {
			return checkReturned(attribute, result.value());
		}
		// Validated at startup: a skipped method returns void or Optional.
		return (attribute.method().getReturnType() == Optional.class) ? Optional.empty() : null;
	}

	/**
	 * Return what the method returned, unless it is work that may run after the lock ends
	 * and that its declared type hid from the startup check: only the caller can be told.
	 * A transaction around the advice rolls back, as for any exception of the method.
	 * @throws IllegalStateException naming the method and the type it returned
	 */
	private static @Nullable Object checkReturned(AdvisoryLockAttribute attribute, @Nullable Object value) {
		if (value != null && attribute.checksReturnedWork() && OUTLIVES_THE_CALL.get(value.getClass())) {
			throw new IllegalStateException(inMethod(attribute, "it returned a " + value.getClass().getName()
					+ ", whose work may still run after the method has returned, unguarded: the lock ends with the "
					+ ((attribute.scope() == LockScope.INVOCATION) ? "call" : "transaction") + ". The method is "
					+ "declared to return " + attribute.method().getReturnType().getSimpleName() + ", so the "
					+ "startup check could not refuse it; the value is not returned. Return the value itself, or "
					+ "declare the Future type with @Async on the method, or take the lock inside the asynchronous "
					+ "work"));
		}
		return value;
	}

	/**
	 * Return the value of each key expression for one call, unchecked and unexpanded: the
	 * lock operations do both.
	 */
	private List<@Nullable Object> keys(AdvisoryLockAttribute attribute, @Nullable Class<?> targetClass,
			@Nullable Object target, @Nullable Object[] args) {
		EvaluationContext context = null;
		List<@Nullable Object> keys = new ArrayList<>(attribute.keyExpressions().size());
		for (int i = 0; i < attribute.keyExpressions().size(); i++) {
			String expression = attribute.keyExpressions().get(i);
			int parameter = attribute.parameterIndexes().get(i);
			Object value;
			if (parameter >= 0) {
				// A bare #name, #p0 or #a0: what SpEL would return, without evaluating.
				value = (args != null && parameter < args.length) ? args[parameter] : null;
			}
			else {
				if (context == null) {
					context = this.evaluator.createContext(attribute.method(), args, target);
				}
				try {
					value = this.evaluator.evaluate(expression, attribute.method(), targetClass, context);
				}
				catch (EvaluationException ex) {
					throw new InvalidLockKeyException(inMethod(attribute,
							"key expression '" + expression + "' failed: " + ex.getMessage() + MUST_NAME_A_RESOURCE), i,
							ex);
				}
				catch (RuntimeException ex) {
					// SpEL lets what a method of the expression throws through as it is.
					throw new InvalidLockKeyException(
							inMethod(attribute, "key expression '" + expression + "' threw "
									+ ex.getClass().getSimpleName() + ": " + ex.getMessage() + MUST_NAME_A_RESOURCE),
							i, ex);
				}
			}
			keys.add(value);
		}
		return keys;
	}

	private static String inMethod(AdvisoryLockAttribute attribute, @Nullable String message) {
		return attribute.caller() + ": " + message;
	}

	/**
	 * Carries what the method threw through the lock callback, which throws no checked
	 * exception, so that the caller gets it unchanged.
	 */
	@SuppressWarnings("serial")
	private static final class BodyFailure extends RuntimeException {

		BodyFailure(Throwable cause) {
			super(null, cause, true, false);
		}

	}

	/**
	 * Proceeds with the intercepted method.
	 */
	@FunctionalInterface
	public interface Invocation {

		/**
		 * Proceed with the method.
		 * @return what the method returned
		 * @throws Throwable what the method threw
		 */
		@Nullable Object proceed() throws Throwable;

		/**
		 * Return an invocation that may proceed once per subscription, for a reactive
		 * method whose publisher is subscribed again ({@code retry}, {@code repeat}).
		 * @return the invocation; this one where proceeding twice is harmless
		 */
		default Invocation repeatable() {
			return this;
		}

	}

}
