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
import java.util.Arrays;
import java.util.List;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import org.junit.jupiter.api.Test;

import org.springframework.aop.Advisor;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the wiring of {@link AdvisoryLockBeanPostProcessor}: its advisors and their
 * pointcuts, without a database.
 */
class AdvisoryLockBeanPostProcessorTests {

	private final AdvisoryLockBeanPostProcessor postProcessor = new AdvisoryLockBeanPostProcessor(() -> {
		throw new AssertionError("no call is made");
	});

	AdvisoryLockBeanPostProcessorTests() {
		this.postProcessor.setBeanFactory(new DefaultListableBeanFactory());
		this.postProcessor.setProxyTargetClass(true);
	}

	@Test
	void everyBeanIsAdvisedByTheSameTwoAdvisors() {
		List<Advisor> first = advisors(this.postProcessor.postProcessAfterInitialization(new Both(), "first"));
		List<Advisor> second = advisors(this.postProcessor.postProcessAfterInitialization(new Both(), "second"));
		assertThat(first).hasSize(2);
		assertThat(second).hasSize(2);
		for (int i = 0; i < first.size(); i++) {
			assertThat(second.get(i)).isSameAs(first.get(i));
		}
		assertThat(first).extracting((advisor) -> ((PointcutAdvisor) advisor).getPointcut().toString())
			.containsExactlyInAnyOrder("AdvisoryLockPointcut: @AdvisoryLocked(scope = TRANSACTION)",
					"AdvisoryLockPointcut: @AdvisoryLocked(scope = INVOCATION)");
	}

	@Test
	void findsAnAnnotatedMethodDeclaredOrInheritedAndNoneWhereThereIsNone() {
		assertThat(AdvisoryLockBeanPostProcessor.findAnnotatedMethod(Both.class)).isNotNull()
			.satisfies((method) -> assertThat(method.getName()).isIn("transaction", "invocation"));
		assertThat(AdvisoryLockBeanPostProcessor.findAnnotatedMethod(Inheriting.class)).isNotNull()
			.satisfies((method) -> assertThat(method.getDeclaringClass()).isEqualTo(Both.class));
		assertThat(AdvisoryLockBeanPostProcessor.findAnnotatedMethod(Plain.class)).isNull();
	}

	@Test
	void aBeanWithoutTheAnnotationIsLeftAlone() {
		Object bean = new Plain();
		assertThat(this.postProcessor.postProcessAfterInitialization(bean, "plain")).isSameAs(bean);
	}

	@Test
	void pointcutsOfTheSameSourceAndScopeAreEqual() {
		AdvisoryLockAttributeSource source = source();
		AdvisoryLockPointcut transaction = new AdvisoryLockPointcut(source, LockScope.TRANSACTION);
		assertThat(transaction).isEqualTo(new AdvisoryLockPointcut(source, LockScope.TRANSACTION))
			.hasSameHashCodeAs(new AdvisoryLockPointcut(source, LockScope.TRANSACTION))
			.isNotEqualTo(new AdvisoryLockPointcut(source, LockScope.INVOCATION))
			.isNotEqualTo(new AdvisoryLockPointcut(source(), LockScope.TRANSACTION));
		assertThat(transaction.getClassFilter())
			.isEqualTo(new AdvisoryLockPointcut(source, LockScope.INVOCATION).getClassFilter());
		assertThat(transaction).hasToString("AdvisoryLockPointcut: @AdvisoryLocked(scope = TRANSACTION)");
	}

	@Test
	void eachPointcutMatchesTheMethodsOfItsScope() throws Exception {
		AdvisoryLockAttributeSource source = source();
		Method transaction = Both.class.getMethod("transaction", String.class);
		Method invocation = Both.class.getMethod("invocation");
		AdvisoryLockPointcut transactionScope = new AdvisoryLockPointcut(source, LockScope.TRANSACTION);
		AdvisoryLockPointcut invocationScope = new AdvisoryLockPointcut(source, LockScope.INVOCATION);
		assertThat(transactionScope.matches(transaction, Both.class)).isTrue();
		assertThat(transactionScope.matches(invocation, Both.class)).isFalse();
		assertThat(invocationScope.matches(invocation, Both.class)).isTrue();
		assertThat(invocationScope.matches(transaction, Both.class)).isFalse();
		assertThat(transactionScope.getClassFilter().matches(Both.class)).isTrue();
	}

	private static AdvisoryLockAttributeSource source() {
		LockKeyExpressionEvaluator evaluator = new LockKeyExpressionEvaluator(null);
		return new AdvisoryLockAttributeSource(evaluator, new AdvisoryLockAttributeValidator(evaluator, null, null));
	}

	private static List<Advisor> advisors(Object proxy) {
		assertThat(proxy).isInstanceOf(Advised.class);
		return Arrays.asList(((Advised) proxy).getAdvisors());
	}

	static class Both {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public void transaction(String id) {
		}

		@AdvisoryLocked(namespace = "n", key = "'job'", scope = LockScope.INVOCATION)
		public void invocation() {
		}

	}

	static class Inheriting extends Both {

	}

	static class Plain {

		public void call() {
		}

	}

}
