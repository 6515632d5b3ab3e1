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

import java.util.function.Supplier;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * AOP Alliance adapter of {@link AdvisoryLockAspectSupport}: takes the advisory locks of
 * an {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked} method before it runs.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockInterceptor extends AdvisoryLockAspectSupport implements MethodInterceptor {

	/**
	 * Create the interceptor.
	 * @param operations supplies the lock operations at the first call
	 * @param attributeSource finds the annotation of a method, parsed and validated once
	 * @param evaluator evaluates the key expressions of a call
	 */
	AdvisoryLockInterceptor(Supplier<AdvisoryLockOperations> operations,
			Supplier<ReactiveAdvisoryLockOperations> reactiveOperations, AdvisoryLockAttributeSource attributeSource,
			LockKeyExpressionEvaluator evaluator) {
		super(operations, reactiveOperations, attributeSource, evaluator);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		return execute(invocation.getMethod(), targetClass, target, invocation.getArguments(), new Invocation() {

			@Override
			public @Nullable Object proceed() throws Throwable {
				return invocation.proceed();
			}

			@Override
			public Invocation repeatable() {
				// A clone per subscription runs the rest of the chain again, as Spring's
				// reactive transaction interceptor needs.
				return (invocation instanceof ProxyMethodInvocation proxied) ? () -> proxied.invocableClone().proceed()
						: this;
			}

		});
	}

}
