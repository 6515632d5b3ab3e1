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

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.SubmissionPublisher;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.WaitMode;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.FixedValue;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.scheduling.annotation.Async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests of the rules of {@link AdvisoryLockAttributeValidator} on the values of
 * {@link AdvisoryLocked @AdvisoryLocked} and the method it is on, as the startup check of
 * a bean applies them ({@link AdvisoryLockAttributeSource#validate}): misuse fails naming
 * the method and what to fix. No application context, no database; placeholders resolve
 * from a {@link MockEnvironment}, as an application context resolves them from its
 * {@code Environment}.
 */
class AdvisoryLockAttributeValidatorTests {

	private final MockEnvironment environment = new MockEnvironment();

	private final LockKeyExpressionEvaluator evaluator = new LockKeyExpressionEvaluator(null);

	private final AdvisoryLockAttributeSource source = new AdvisoryLockAttributeSource(this.evaluator,
			new AdvisoryLockAttributeValidator(this.evaluator, this.environment::resolvePlaceholders, null));

	private void assertInvalid(Class<?> bean, String method, String... problems) {
		assertThatIllegalStateException().isThrownBy(() -> this.source.validate(bean))
			.withMessageContaining("Invalid @AdvisoryLocked on " + bean.getName() + "." + method)
			.withMessageContainingAll(problems);
	}

	private void assertValid(Class<?> bean) {
		assertThatNoException().isThrownBy(() -> this.source.validate(bean));
	}

	@Test
	void aBlankNamespaceFailsAtStartup() {
		assertInvalid(BlankNamespace.class, "call(String)", "namespace must not be blank");
	}

	@Test
	void aNamespaceLongerThanTheLimitFailsAtStartup() {
		assertInvalid(LongNamespace.class, "call(String)",
				"namespace is 101 characters long, more than the " + "limit of 100 (LockRequest.MAX_NAMESPACE_LENGTH)");
	}

	@Test
	void aNamespaceWithANulCharacterFailsAtStartup() {
		assertInvalid(NulNamespace.class, "run()", "namespace holds a NUL character (\\u0000) at index 3");
	}

	@Test
	void namespaceOfTheLimitIsValid() {
		assertValid(LongestNamespace.class);
	}

	@Test
	void aMethodWithoutAKeyExpressionFailsAtStartup() {
		assertInvalid(NoKey.class, "call(String)", "key must name at least one SpEL expression");
	}

	@Test
	void aBlankKeyExpressionFailsAtStartup() {
		assertInvalid(BlankKey.class, "call(String)", "key expressions must not be blank");
	}

	@Test
	void anUnparsableKeyExpressionFailsAtStartup() {
		assertInvalid(UnparsableKey.class, "call(String)", "key expression '#id +' is invalid");
	}

	@Test
	void aKeyExpressionNamingAnUnknownParameterFailsAtStartup() {
		assertInvalid(UnknownParameter.class, "call(String)", "#userid is not a parameter of the method");
	}

	@Test
	void anUnparsableTimeoutFailsAtStartup() {
		assertInvalid(BadTimeout.class, "call(String)", "timeout 'soon' is not a duration");
	}

	@Test
	void aZeroTimeoutFailsAtStartup() {
		assertInvalid(ZeroTimeout.class, "call(String)", "timeout '0ms' must be between 1ms and");
	}

	@Test
	void aNegativeTimeoutFailsAtStartup() {
		assertInvalid(NegativeTimeout.class, "call(String)", "timeout '-1s' must be between 1ms and");
	}

	@Test
	void aTimeoutOnATryFailsAtStartup() {
		assertInvalid(TimeoutWithTry.class, "call(String)", "has no meaning for waitMode TRY");
	}

	@Test
	void anUnresolvablePlaceholderTimeoutFailsAtStartup() {
		assertInvalid(PlaceholderTimeout.class, "call(String)", "timeout '${app.lock-timeout}' is not a duration");
	}

	@Test
	void aPrivateMethodFailsAtStartup() {
		assertInvalid(PrivateMethod.class, "call(String)", "a proxy cannot intercept a private method");
	}

	@Test
	void aFinalMethodFailsAtStartup() {
		assertInvalid(FinalMethod.class, "call(String)", "a proxy cannot intercept a final method");
	}

	@Test
	void aStaticMethodFailsAtStartup() {
		assertInvalid(StaticMethod.class, "call(String)", "a proxy cannot intercept a static method");
	}

	@Test
	void composedAnnotationIsValidatedToo() {
		assertInvalid(ComposedBlankNamespace.class, "call(String)", "namespace must not be blank");
	}

	@Test
	void anAnnotationBesideAComposedOneFailsAtStartupNamingBoth() {
		assertInvalid(LockedTwiceDirectlyAndComposed.class, "call(String)",
				"carries @AdvisoryLocked twice, so one lock would be silently dropped: @AdvisoryLocked and "
						+ "@AdvisoryLockValidationTests.AccountLock (meta-annotated with @AdvisoryLocked)",
				"keep one");
	}

	@Test
	void twoComposedAnnotationsFailAtStartupNamingBoth() {
		assertInvalid(LockedTwiceComposed.class, "call(String)", "carries @AdvisoryLocked twice",
				"@AdvisoryLockValidationTests.AccountLock", "@AdvisoryLockValidationTests.RequestLock");
	}

	@Test
	void composedAnnotationOnAnOverrideOfAnAnnotatedMethodIsValid() {
		// The nearest declaration applies, as for @Transactional: an override is not a
		// second annotation.
		assertValid(OverridingLock.class);
	}

	@Test
	void aCompletableFutureWithoutAsyncFailsAtStartup() {
		assertInvalid(ReturnsCompletableFuture.class, "supply(String)",
				"it returns CompletableFuture, whose "
						+ "work may still run after the method has returned, and the lock ends with the transaction or "
						+ "the call, before that work runs, so it would guard nothing: return the value itself, or put "
						+ "@Async on the method",
				"so that the transaction and the lock are taken on the executor's " + "thread around the whole work",
				"or take the lock inside the asynchronous work");
	}

	@Test
	void aCompletionStageAFutureAndAFlowPublisherWithoutAsyncFailAtStartup() {
		assertInvalid(ReturnsCompletionStage.class, "supply(String)", "it returns CompletionStage, whose work");
		assertInvalid(ReturnsFuture.class, "supply(String)", "it returns Future, whose work");
		assertInvalid(ReturnsFlowPublisher.class, "stream(String)",
				"it returns Publisher, a reactive Publisher, whose work");
	}

	@Test
	void anInvocationScopedCompletableFutureWithoutAsyncFailsAtStartup() {
		assertInvalid(InvocationScopeReturnsCompletableFuture.class, "run()", "it returns CompletableFuture");
	}

	@Test
	void aReactiveStreamsPublisherFailsAtStartup() {
		assertInvalid(ReturnsReactiveStreamsPublisher.class, "call(String)",
				"it returns Publisher, a reactive Publisher, whose work may "
						+ "still run after the method has returned",
				"return the value itself, or take the lock " + "inside the asynchronous work");
	}

	@Test
	void aFluxWithoutTheReactivePathFailsAtStartupNamingWhatItNeeds() {
		// No ReactiveAdvisoryLockOperations bean: no R2DBC, so nothing to join.
		assertInvalid(ReturnsFlux.class, "call(String)", "it returns Flux, a reactive Publisher, whose work",
				"where the application has R2DBC: spring-r2dbc, the r2dbc-postgresql driver and a "
						+ "ConnectionFactory bean");
	}

	@Test
	void aKotlinSuspendFunctionFailsAtStartup() {
		// Compiled from Kotlin, "suspend fun call(id: String): Any?" takes a Continuation
		// as its last parameter.
		Class<?> suspending = LibraryTypes.suspendingBean("SuspendingService");
		assertInvalid(suspending, "call(String, Continuation)",
				"it is a Kotlin suspend function, whose work " + "may still run after the method has returned",
				"where the application has R2DBC", "and kotlinx-coroutines-reactor (docs/reactive.md)");
	}

	@Test
	void aKotlinSuspendFunctionWithoutCoroutinesReactorFailsAtStartupNamingIt() {
		// The reactive path is there, but without kotlinx-coroutines-reactor (absent from
		// this class path) Spring's AOP calls the function directly, and the lock's
		// advice would see nothing but COROUTINE_SUSPENDED.
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("reactiveLocks",
				new RootBeanDefinition(ReactiveAdvisoryLockOperations.class, () -> null));
		AdvisoryLockAttributeSource reactiveSource = new AdvisoryLockAttributeSource(this.evaluator,
				new AdvisoryLockAttributeValidator(this.evaluator, this.environment::resolvePlaceholders, beanFactory));
		Class<?> suspending = LibraryTypes.suspendingBean("SuspendingReactiveService");
		assertThatIllegalStateException().isThrownBy(() -> reactiveSource.validate(suspending))
			.withMessageContaining("it is a Kotlin suspend function, whose work")
			.withMessageContaining("add org.jetbrains.kotlinx:kotlinx-coroutines-reactor to the application");
	}

	@Test
	void asyncMethodsReturningAFutureAreValid() {
		// Behind @Async the lock is taken on the executor's thread, around the whole
		// work.
		assertValid(AsyncMethods.class);
		assertValid(AsyncClass.class);
	}

	@Test
	void anAsyncMethodDeclaredToReturnACompletionStageFailsAtStartup() {
		// @Async cannot run such a method: Spring's async advice submits Futures only.
		assertInvalid(AsyncCompletionStage.class, "supply(String)", "it returns CompletionStage",
				"put @Async on the method (declared to return a Future or CompletableFuture)");
	}

	@Test
	void aTimeoutOnASkipFailsAtStartup() {
		assertInvalid(TimeoutOnSkip.class, "run()", "timeout '2s' has no meaning for waitMode SKIP, which never "
				+ "waits: remove it, or use waitMode BLOCK");
	}

	@Test
	void aSkipOnAMethodReturningAValueFailsAtStartup() {
		assertInvalid(SkipReturningValue.class, "count()", "waitMode SKIP returns without running the method "
				+ "when the lock is held, so the method must return void or Optional, and it returns int: return "
				+ "Optional<Integer>, or use waitMode TRY");
	}

	@Test
	void skipOnVoidAndOptionalMethodsIsValid() {
		assertValid(SkipOnVoidAndOptional.class);
	}

	@Test
	void placeholderTimeoutResolvesThroughTheResolver() throws NoSuchMethodException {
		this.environment.setProperty("app.lock-timeout", "250ms");
		assertValid(PlaceholderTimeout.class);
		AdvisoryLockAttribute attribute = this.source
			.getAttribute(PlaceholderTimeout.class.getMethod("call", String.class), PlaceholderTimeout.class);
		assertThat(attribute).isNotNull();
		assertThat(attribute.timeout()).isEqualTo(Duration.ofMillis(250));
	}

	static class TimeoutOnSkip {

		@AdvisoryLocked(namespace = "job", key = "'a'", scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP,
				timeout = "2s")
		public void run() {
		}

	}

	static class SkipReturningValue {

		@AdvisoryLocked(namespace = "job", key = "'a'", waitMode = WaitMode.SKIP)
		public int count() {
			return 1;
		}

	}

	static class SkipOnVoidAndOptional {

		@AdvisoryLocked(namespace = "job", key = "'a'", scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP)
		public void run() {
		}

		@AdvisoryLocked(namespace = "job", key = "'b'", waitMode = WaitMode.SKIP)
		public java.util.Optional<String> find() {
			return java.util.Optional.empty();
		}

	}

	static class ReturnsCompletableFuture {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public CompletableFuture<String> supply(String id) {
			return CompletableFuture.supplyAsync(() -> id);
		}

	}

	static class ReturnsCompletionStage {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public CompletionStage<String> supply(String id) {
			return CompletableFuture.supplyAsync(() -> id);
		}

	}

	static class ReturnsFuture {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public Future<String> supply(String id) {
			return CompletableFuture.supplyAsync(() -> id);
		}

	}

	static class ReturnsReactiveStreamsPublisher {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public Publisher<String> call(String id) {
			return Flux.just(id);
		}

	}

	static class ReturnsFlux {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public Flux<String> call(String id) {
			return Flux.just(id);
		}

	}

	static class ReturnsFlowPublisher {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public Flow.Publisher<String> stream(String id) {
			return new SubmissionPublisher<>();
		}

	}

	static class InvocationScopeReturnsCompletableFuture {

		@AdvisoryLocked(namespace = "job", key = "'a'", scope = LockScope.INVOCATION)
		public CompletableFuture<Void> run() {
			return CompletableFuture.runAsync(() -> {
			});
		}

	}

	static class AsyncMethods {

		@Async
		@AdvisoryLocked(namespace = "n", key = "#id")
		public CompletableFuture<String> supply(String id) {
			return CompletableFuture.completedFuture(id);
		}

		@Async
		@AdvisoryLocked(namespace = "n", key = "#id")
		public Future<String> submit(String id) {
			return CompletableFuture.completedFuture(id);
		}

		@Async
		@AdvisoryLocked(namespace = "job", key = "'a'", scope = LockScope.INVOCATION)
		public CompletableFuture<Void> run() {
			return CompletableFuture.completedFuture(null);
		}

	}

	@Async
	static class AsyncClass {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public CompletableFuture<String> supply(String id) {
			return CompletableFuture.completedFuture(id);
		}

	}

	static class AsyncCompletionStage {

		@Async
		@AdvisoryLocked(namespace = "n", key = "#id")
		public CompletionStage<String> supply(String id) {
			return CompletableFuture.completedFuture(id);
		}

	}

	/**
	 * Types named as the library that the tests do not depend on names them (the Kotlin
	 * standard library), each defined with a bean that uses it in a class loader of its
	 * own, so that no stand-in of them shadows the real library on the test class path of
	 * other tests.
	 */
	static final class LibraryTypes {

		private static final ByteBuddy BYTE_BUDDY = new ByteBuddy(ClassFileVersion.JAVA_V17);

		private static final AnnotationDescription LOCK = AnnotationDescription.Builder.ofType(AdvisoryLocked.class)
			.define("namespace", "n")
			.defineArray("key", "#p0")
			.build();

		private LibraryTypes() {
		}

		/**
		 * Return a bean class whose method {@code call(String, Continuation)} is locked,
		 * as Kotlin compiles a suspend function.
		 */
		static Class<?> suspendingBean(String beanName) {
			DynamicType.Unloaded<?> continuation = BYTE_BUDDY.makeInterface()
				.name("kotlin.coroutines.Continuation")
				.make();
			return BYTE_BUDDY.subclass(Object.class)
				.name(AdvisoryLockAttributeValidatorTests.class.getPackageName() + "." + beanName)
				.defineMethod("call", Object.class, Visibility.PUBLIC)
				.withParameters(TypeDescription.ForLoadedType.of(String.class), continuation.getTypeDescription())
				.intercept(FixedValue.nullValue())
				.annotateMethod(LOCK)
				.make()
				.include(continuation)
				.load(AdvisoryLockAttributeValidatorTests.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
				.getLoaded();
		}

	}

	static class BlankNamespace {

		@AdvisoryLocked(namespace = " ", key = "#id")
		public void call(String id) {
		}

	}

	/**
	 * Ten characters, to write namespaces of a given length as compile-time constants.
	 */
	private static final String TEN = "0123456789";

	static class LongestNamespace {

		@AdvisoryLocked(namespace = TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN, key = "#id")
		public void call(String id) {
		}

	}

	static class NulNamespace {

		@AdvisoryLocked(namespace = "job\u0000export", key = "'a'", scope = LockScope.INVOCATION)
		public void run() {
		}

	}

	static class LongNamespace {

		@AdvisoryLocked(namespace = TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + TEN + "x", key = "#id")
		public void call(String id) {
		}

	}

	static class NoKey {

		@AdvisoryLocked(namespace = "n", key = {})
		public void call(String id) {
		}

	}

	static class BlankKey {

		@AdvisoryLocked(namespace = "n", key = { "#id", "" })
		public void call(String id) {
		}

	}

	static class UnparsableKey {

		@AdvisoryLocked(namespace = "n", key = "#id +")
		public void call(String id) {
		}

	}

	static class UnknownParameter {

		@AdvisoryLocked(namespace = "n", key = "#userid")
		public void call(String userId) {
		}

	}

	static class BadTimeout {

		@AdvisoryLocked(namespace = "n", key = "#id", timeout = "soon")
		public void call(String id) {
		}

	}

	static class ZeroTimeout {

		@AdvisoryLocked(namespace = "n", key = "#id", timeout = "0ms")
		public void call(String id) {
		}

	}

	static class NegativeTimeout {

		@AdvisoryLocked(namespace = "n", key = "#id", timeout = "-1s")
		public void call(String id) {
		}

	}

	static class TimeoutWithTry {

		@AdvisoryLocked(namespace = "n", key = "#id", waitMode = WaitMode.TRY, timeout = "1s")
		public void call(String id) {
		}

	}

	static class PlaceholderTimeout {

		@AdvisoryLocked(namespace = "n", key = "#id", timeout = "${app.lock-timeout}")
		public void call(String id) {
		}

	}

	static class PrivateMethod {

		@AdvisoryLocked(namespace = "n", key = "#id")
		private void call(String id) {
		}

	}

	static class FinalMethod {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public final void call(String id) {
		}

	}

	static class StaticMethod {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public static void call(String id) {
		}

	}

	@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
	@java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
	@AdvisoryLocked(namespace = "", key = "#id")
	@interface BlankLock {

	}

	static class LockedTwiceDirectlyAndComposed {

		@AdvisoryLocked(namespace = "n", key = "#id")
		@AdvisoryLockValidationTests.AccountLock
		public void call(String id) {
		}

	}

	static class LockedTwiceComposed {

		@AdvisoryLockValidationTests.AccountLock
		@AdvisoryLockValidationTests.RequestLock
		public void call(String id) {
		}

	}

	static class LockedBase {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public void call(String id) {
		}

	}

	static class OverridingLock extends LockedBase {

		@Override
		@AdvisoryLockValidationTests.AccountLock
		public void call(String id) {
		}

	}

	static class ComposedBlankNamespace {

		@BlankLock
		public void call(String id) {
		}

	}

}
