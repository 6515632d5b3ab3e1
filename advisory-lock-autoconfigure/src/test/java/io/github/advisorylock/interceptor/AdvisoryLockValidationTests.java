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

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that misuse of {@link AdvisoryLocked @AdvisoryLocked} fails the application
 * context at startup, naming the method and what to fix, where the application context
 * takes part: the validation runs when a bean is proxied, placeholders resolve from the
 * {@code Environment}, and what a JDK proxy can intercept depends on how the bean is
 * proxied. The rules on the annotation's values are tested without a context in
 * {@link AdvisoryLockAttributeValidatorTests}.
 */
class AdvisoryLockValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
		.withBean(DataSource.class, () -> TestDatabase.get().dataSource());

	private static ContextConsumer<AssertableApplicationContext> failsWith(Class<?> bean, String method,
			String... problems) {
		return (context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			while (failure != null && !(failure instanceof IllegalStateException
					&& String.valueOf(failure.getMessage()).startsWith("Invalid @AdvisoryLocked"))) {
				failure = failure.getCause();
			}
			assertThat(failure).as("the validation error in %s", context.getStartupFailure())
				.hasMessageContaining("Invalid @AdvisoryLocked on " + bean.getName() + "." + method)
				.hasMessageContainingAll(problems);
		};
	}

	@Test
	void aBlankNamespaceFailsAtStartup() {
		this.contextRunner.withBean(BlankNamespace.class)
			.run(failsWith(BlankNamespace.class, "call(String)", "namespace must not be blank"));
	}

	@Test
	void placeholderTimeoutResolvesFromTheEnvironment() {
		this.contextRunner.withPropertyValues("app.lock-timeout=250ms")
			.withBean(PlaceholderTimeout.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(PlaceholderTimeout.class));
	}

	@Test
	void aMethodMissingFromTheInterfacesOfAJdkProxyFailsAtStartup() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(NotOnInterface.class)
			.run(failsWith(NotOnInterface.class, "extra(String)", "none of them declares this method"));
	}

	@Test
	void aGenericInterfaceMethodImplementedWithAConcreteTypeIsValid() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(StringHandler.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(Handler.class));
	}

	@Test
	void methodMissingFromTheInterfacesIsFineWhenTheClassIsProxied() {
		this.contextRunner.withBean(NotOnInterface.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(NotOnInterface.class));
	}

	static class BlankNamespace {

		@AdvisoryLocked(namespace = " ", key = "#id")
		public void call(String id) {
		}

	}

	static class PlaceholderTimeout {

		@AdvisoryLocked(namespace = "n", key = "#id", timeout = "${app.lock-timeout}")
		public void call(String id) {
		}

	}

	interface Declared {

		void call(String id);

	}

	interface Handler<T> {

		void handle(T value);

	}

	static class StringHandler implements Handler<String> {

		@Override
		@AdvisoryLocked(namespace = "n", key = "#value")
		public void handle(String value) {
		}

	}

	static class NotOnInterface implements Declared {

		@Override
		@AdvisoryLocked(namespace = "n", key = "#id")
		public void call(String id) {
		}

		@AdvisoryLocked(namespace = "n", key = "#id")
		public void extra(String id) {
		}

	}

	// The composed annotations of AdvisoryLockAttributeValidatorTests, declared here
	// because the messages it asserts name them by their enclosing class.

	@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
	@java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
	@AdvisoryLocked(namespace = "account", key = "#id")
	@interface AccountLock {

	}

	@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
	@java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
	@AdvisoryLocked(namespace = "request", key = "#id")
	@interface RequestLock {

	}

}
