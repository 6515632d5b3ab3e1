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
import java.util.Map;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.expression.StandardBeanExpressionResolver;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of the rules of {@link AdvisoryLockAttributeValidator} on
 * {@link AdvisoryLocked#permits() permits} and {@link AdvisoryLocked#permitsString()
 * permitsString}, as the startup check of a bean applies them: a limit that cannot be
 * kept fails naming the method and what to fix. No application context, no database.
 */
class AdvisoryLockPermitsValidationTests {

	private static final Method CALL = ReflectionUtils.findMethod(Plain.class, "call", String.class);

	private final MockEnvironment environment = new MockEnvironment().withProperty("app.export.permits", "3")
		.withProperty("app.words", "three")
		.withProperty("app.blank", "");

	private final LockKeyExpressionEvaluator evaluator = new LockKeyExpressionEvaluator(null);

	private final AdvisoryLockAttributeSource source = new AdvisoryLockAttributeSource(this.evaluator,
			new AdvisoryLockAttributeValidator(this.evaluator, this.environment::resolvePlaceholders, null));

	private void assertInvalid(Class<?> bean, String... problems) {
		assertThatIllegalStateException().isThrownBy(() -> this.source.validate(bean))
			.withMessageContaining("Invalid @AdvisoryLocked on " + bean.getName() + ".call(String)")
			.withMessageContainingAll(problems);
	}

	private int permits(Class<?> bean) {
		Method call = ReflectionUtils.findMethod(bean, "call", String.class);
		AdvisoryLockAttribute attribute = this.source.getAttribute(call, bean);
		assertThat(attribute).isNotNull();
		return attribute.permits();
	}

	@Test
	void aPlainLockHasOnePermit() {
		assertThat(permits(Plain.class)).isEqualTo(1);
	}

	@Test
	void permitsMakeALimit() {
		assertThat(permits(ThreePermits.class)).isEqualTo(3);
	}

	@Test
	void permitsStringResolvesItsPlaceholder() {
		assertThat(permits(PlaceholderPermits.class)).isEqualTo(3);
	}

	@Test
	void noPermitFailsAtStartup() {
		assertInvalid(NoPermit.class, "permits = 0: Advisory lock permits must be between 1 and 64");
	}

	@Test
	void morePermitsThanTheMaximumFailAtStartup() {
		assertInvalid(TooManyPermits.class, "permits = 65", "(LockRequest.MAX_PERMITS)");
	}

	@Test
	void aSharedLimitFailsAtStartup() {
		assertInvalid(SharedLimit.class, "mode SHARED has no limit to keep");
	}

	@Test
	void aLimitOfSeveralKeyExpressionsFailsAtStartup() {
		assertInvalid(TwoKeys.class, "limits the calls on one resource, and key names 2 expressions");
	}

	@Test
	void anInvocationScopedLimitIsValid() {
		assertThat(permits(InvocationLimit.class)).isEqualTo(2);
	}

	@Test
	void aReactiveInvocationScopedLimitIsValid() {
		AdvisoryLockAttributeSource reactiveSource = reactiveSource();
		Method call = ReflectionUtils.findMethod(ReactiveInvocationLimit.class, "call", String.class);
		AdvisoryLockAttribute attribute = reactiveSource.getAttribute(call, ReactiveInvocationLimit.class);
		assertThat(attribute).isNotNull();
		assertThat(attribute.reactive()).isNotNull();
		assertThat(attribute.permits()).isEqualTo(2);
	}

	@Test
	void permitsStringThatIsNoNumberFailsAtStartupNamingWhatItResolvedTo() {
		assertInvalid(WordPermits.class,
				"permitsString \"${app.words}\" is not a whole number (For input string: \"three\")");
	}

	@Test
	void permitsStringThatCannotResolveFailsAtStartup() {
		assertInvalid(UnresolvablePermits.class, "permitsString \"${app.missing}\" is not a whole number");
	}

	/**
	 * The texts Spring's {@code @ConcurrencyLimit(limitString)} accepts, resolved as a
	 * bean factory resolves embedded values, and what each gives; a blank one leaves
	 * {@code permits}.
	 */
	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '"', value = { "3 | 3", "${app.export.permits} | 3", "#{1 + 2} | 3",
			"#{'${app.export.permits}'} | 3", "\"  \" | 1", "${app.blank} | 1" })
	void permitsStringIsReadAsSpringReadsAConcurrencyLimitsLimitString(String text, int permits) {
		assertThat(springValidator().permits(CALL, annotation(text))).isEqualTo(permits);
	}

	/** What Spring's {@code Integer.parseInt} of the resolved text refuses. */
	@ParameterizedTest
	@ValueSource(strings = { " 3 ", "3 ", "+ 3", "3.0", "0x3", "three", "#{'three'}" })
	void permitsStringThatSpringWouldRefuseFailsAtStartup(String text) {
		assertThatIllegalStateException().isThrownBy(() -> springValidator().permits(CALL, annotation(text)))
			.withMessageContaining("permitsString \"" + text + "\" is not a whole number");
	}

	/** A validator with the resolver of a bean factory: placeholders and expressions. */
	private AdvisoryLockAttributeValidator springValidator() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.setBeanExpressionResolver(new StandardBeanExpressionResolver());
		beanFactory.addEmbeddedValueResolver(this.environment::resolvePlaceholders);
		return new AdvisoryLockAttributeValidator(this.evaluator, new EmbeddedValueResolver(beanFactory), null);
	}

	private static AdvisoryLocked annotation(String permitsString) {
		return AnnotationUtils.synthesizeAnnotation(
				Map.of("namespace", "export", "key", new String[] { "#tenant" }, "permitsString", permitsString),
				AdvisoryLocked.class, null);
	}

	@Test
	void bothPermitsAndPermitsStringFailAtStartup() {
		assertInvalid(BothPermits.class, "permits = 2 and permitsString \"3\" both set the number of permits");
	}

	@Test
	void aReactiveTransactionScopedLimitIsValid() {
		AdvisoryLockAttributeSource reactiveSource = reactiveSource();
		Method call = ReflectionUtils.findMethod(ReactiveLimit.class, "call", String.class);
		AdvisoryLockAttribute attribute = reactiveSource.getAttribute(call, ReactiveLimit.class);
		assertThat(attribute).isNotNull();
		assertThat(attribute.reactive()).isNotNull();
		assertThat(attribute.permits()).isEqualTo(2);
	}

	/** The source of an application with a reactive stack. */
	private AdvisoryLockAttributeSource reactiveSource() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("reactiveLocks",
				new RootBeanDefinition(ReactiveAdvisoryLockOperations.class, () -> null));
		return new AdvisoryLockAttributeSource(this.evaluator,
				new AdvisoryLockAttributeValidator(this.evaluator, this.environment::resolvePlaceholders, beanFactory));
	}

	static class Plain {

		@AdvisoryLocked(namespace = "export", key = "#tenant")
		public void call(String tenant) {
		}

	}

	static class ThreePermits {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 3)
		public void call(String tenant) {
		}

	}

	static class PlaceholderPermits {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permitsString = "${app.export.permits}")
		public void call(String tenant) {
		}

	}

	static class NoPermit {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 0)
		public void call(String tenant) {
		}

	}

	static class TooManyPermits {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 65)
		public void call(String tenant) {
		}

	}

	static class SharedLimit {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 2, mode = LockMode.SHARED)
		public void call(String tenant) {
		}

	}

	static class TwoKeys {

		@AdvisoryLocked(namespace = "export", key = { "#tenant", "#tenant.length()" }, permits = 2)
		public void call(String tenant) {
		}

	}

	static class InvocationLimit {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 2, scope = LockScope.INVOCATION)
		public void call(String tenant) {
		}

	}

	static class WordPermits {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permitsString = "${app.words}")
		public void call(String tenant) {
		}

	}

	static class UnresolvablePermits {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permitsString = "${app.missing}")
		public void call(String tenant) {
		}

	}

	static class BothPermits {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 2, permitsString = "3")
		public void call(String tenant) {
		}

	}

	static class ReactiveLimit {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 2)
		public Mono<Void> call(String tenant) {
			return Mono.empty();
		}

	}

	static class ReactiveInvocationLimit {

		@AdvisoryLocked(namespace = "export", key = "#tenant", permits = 2, scope = LockScope.INVOCATION)
		public Mono<Void> call(String tenant) {
			return Mono.empty();
		}

	}

}
