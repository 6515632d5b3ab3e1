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

import io.github.advisorylock.LockScope;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked} methods of
 * one {@link LockScope}, as the {@link AdvisoryLockAttributeSource} parses them.
 *
 * <p>
 * Equal for the same source and scope, so that Spring can tell an advisor already applied
 * to a proxy (as it does for {@code TransactionAttributeSourcePointcut}).
 *
 * @author advisory-lock authors
 */
class AdvisoryLockPointcut extends StaticMethodMatcherPointcut {

	private final AdvisoryLockAttributeSource source;

	private final LockScope scope;

	/**
	 * Create a pointcut.
	 * @param source parses and caches the annotation of each method
	 * @param scope the scope of the methods to match
	 */
	AdvisoryLockPointcut(AdvisoryLockAttributeSource source, LockScope scope) {
		this.source = source;
		this.scope = scope;
		setClassFilter(new CandidateClassFilter(source));
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		AdvisoryLockAttribute attribute = this.source.getAttribute(method, targetClass);
		return attribute != null && attribute.scope() == this.scope;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof AdvisoryLockPointcut that && this.source == that.source
				&& this.scope == that.scope);
	}

	@Override
	public int hashCode() {
		return AdvisoryLockPointcut.class.hashCode() * 31 + this.scope.hashCode();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + ": @AdvisoryLocked(scope = " + this.scope + ")";
	}

	/** Skips classes that cannot carry the annotation before looking at their methods. */
	private static final class CandidateClassFilter implements ClassFilter {

		private final AdvisoryLockAttributeSource source;

		CandidateClassFilter(AdvisoryLockAttributeSource source) {
			this.source = source;
		}

		@Override
		public boolean matches(Class<?> clazz) {
			return this.source.isCandidateClass(clazz);
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return (this == other) || (other instanceof CandidateClassFilter that && this.source == that.source);
		}

		@Override
		public int hashCode() {
			return CandidateClassFilter.class.hashCode();
		}

		@Override
		public String toString() {
			return AdvisoryLockPointcut.class.getSimpleName() + ".CandidateClassFilter";
		}

	}

}
