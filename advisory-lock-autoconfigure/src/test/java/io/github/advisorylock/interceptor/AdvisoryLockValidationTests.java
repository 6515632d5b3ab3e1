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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.SubmissionPublisher;

import javax.sql.DataSource;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.test.BootAutoConfigurations;
import io.github.advisorylock.test.TestDatabase;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.FixedValue;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.scheduling.annotation.Async;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that misuse of {@link AdvisoryLocked @AdvisoryLocked} fails the application context at startup, naming the
 * method and what to fix.
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
	void aNamespaceLongerThanTheLimitFailsAtStartup() {
		this.contextRunner.withBean(LongNamespace.class)
			.run(failsWith(LongNamespace.class, "call(String)", "namespace is 101 characters long, more than the "
					+ "limit of 100 (LockRequest.MAX_NAMESPACE_LENGTH)"));
	}

	@Test
	void aNamespaceWithANulCharacterFailsAtStartup() {
		this.contextRunner.withBean(NulNamespace.class)
			.run(failsWith(NulNamespace.class, "run()", "namespace holds a NUL character (\\u0000) at index 3"));
	}

	@Test
	void namespaceOfTheLimitIsValid() {
		this.contextRunner.withBean(LongestNamespace.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aMethodWithoutAKeyExpressionFailsAtStartup() {
		this.contextRunner.withBean(NoKey.class)
			.run(failsWith(NoKey.class, "call(String)", "key must name at least one SpEL expression"));
	}

	@Test
	void aBlankKeyExpressionFailsAtStartup() {
		this.contextRunner.withBean(BlankKey.class)
			.run(failsWith(BlankKey.class, "call(String)", "key expressions must not be blank"));
	}

	@Test
	void anUnparsableKeyExpressionFailsAtStartup() {
		this.contextRunner.withBean(UnparsableKey.class)
			.run(failsWith(UnparsableKey.class, "call(String)", "key expression '#id +' is invalid"));
	}

	@Test
	void aKeyExpressionNamingAnUnknownParameterFailsAtStartup() {
		this.contextRunner.withBean(UnknownParameter.class)
			.run(failsWith(UnknownParameter.class, "call(String)", "#userid is not a parameter of the method"));
	}

	@Test
	void anUnparsableTimeoutFailsAtStartup() {
		this.contextRunner.withBean(BadTimeout.class)
			.run(failsWith(BadTimeout.class, "call(String)", "timeout 'soon' is not a duration"));
	}

	@Test
	void aZeroTimeoutFailsAtStartup() {
		this.contextRunner.withBean(ZeroTimeout.class)
			.run(failsWith(ZeroTimeout.class, "call(String)", "timeout '0ms' must be between 1ms and"));
	}

	@Test
	void aNegativeTimeoutFailsAtStartup() {
		this.contextRunner.withBean(NegativeTimeout.class)
			.run(failsWith(NegativeTimeout.class, "call(String)", "timeout '-1s' must be between 1ms and"));
	}

	@Test
	void aTimeoutOnATryFailsAtStartup() {
		this.contextRunner.withBean(TimeoutWithTry.class)
			.run(failsWith(TimeoutWithTry.class, "call(String)", "has no meaning for waitMode TRY"));
	}

	@Test
	void anUnresolvablePlaceholderTimeoutFailsAtStartup() {
		this.contextRunner.withBean(PlaceholderTimeout.class)
			.run(failsWith(PlaceholderTimeout.class, "call(String)", "timeout '${app.lock-timeout}' is not a duration"));
	}

	@Test
	void placeholderTimeoutResolvesFromTheEnvironment() {
		this.contextRunner.withPropertyValues("app.lock-timeout=250ms")
			.withBean(PlaceholderTimeout.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(PlaceholderTimeout.class));
	}

	@Test
	void aPrivateMethodFailsAtStartup() {
		this.contextRunner.withBean(PrivateMethod.class)
			.run(failsWith(PrivateMethod.class, "call(String)", "a proxy cannot intercept a private method"));
	}

	@Test
	void aFinalMethodFailsAtStartup() {
		this.contextRunner.withBean(FinalMethod.class)
			.run(failsWith(FinalMethod.class, "call(String)", "a proxy cannot intercept a final method"));
	}

	@Test
	void aStaticMethodFailsAtStartup() {
		this.contextRunner.withBean(StaticMethod.class)
			.run(failsWith(StaticMethod.class, "call(String)", "a proxy cannot intercept a static method"));
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

	@Test
	void composedAnnotationIsValidatedToo() {
		this.contextRunner.withBean(ComposedBlankNamespace.class)
			.run(failsWith(ComposedBlankNamespace.class, "call(String)", "namespace must not be blank"));
	}

	@Test
	void anAnnotationBesideAComposedOneFailsAtStartupNamingBoth() {
		this.contextRunner.withBean(LockedTwiceDirectlyAndComposed.class)
			.run(failsWith(LockedTwiceDirectlyAndComposed.class, "call(String)",
					"carries @AdvisoryLocked twice, so one lock would be silently dropped: @AdvisoryLocked and "
							+ "@AdvisoryLockValidationTests.AccountLock (meta-annotated with @AdvisoryLocked)",
					"keep one"));
	}

	@Test
	void twoComposedAnnotationsFailAtStartupNamingBoth() {
		this.contextRunner.withBean(LockedTwiceComposed.class)
			.run(failsWith(LockedTwiceComposed.class, "call(String)", "carries @AdvisoryLocked twice",
					"@AdvisoryLockValidationTests.AccountLock", "@AdvisoryLockValidationTests.RequestLock"));
	}

	@Test
	void composedAnnotationOnAnOverrideOfAnAnnotatedMethodIsValid() {
		// The nearest declaration applies, as for @Transactional: an override is not a second annotation.
		this.contextRunner.withBean(OverridingLock.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aCompletableFutureWithoutAsyncFailsAtStartup() {
		this.contextRunner.withBean(ReturnsCompletableFuture.class)
			.run(failsWith(ReturnsCompletableFuture.class, "supply(String)", "it returns CompletableFuture, whose "
					+ "work may still run after the method has returned, and the lock ends with the transaction or "
					+ "the call, before that work runs, so it would guard nothing: return the value itself, or put "
					+ "@Async on the method", "so that the transaction and the lock are taken on the executor's "
							+ "thread around the whole work", "or take the lock inside the asynchronous work"));
	}

	@Test
	void aCompletionStageAFutureAndAFlowPublisherWithoutAsyncFailAtStartup() {
		this.contextRunner.withBean(ReturnsCompletionStage.class)
			.run(failsWith(ReturnsCompletionStage.class, "supply(String)", "it returns CompletionStage, whose work"));
		this.contextRunner.withBean(ReturnsFuture.class)
			.run(failsWith(ReturnsFuture.class, "supply(String)", "it returns Future, whose work"));
		this.contextRunner.withBean(ReturnsFlowPublisher.class)
			.run(failsWith(ReturnsFlowPublisher.class, "stream(String)",
					"it returns Publisher, a reactive Publisher, whose work"));
	}

	@Test
	void anInvocationScopedCompletableFutureWithoutAsyncFailsAtStartup() {
		this.contextRunner.withBean(InvocationScopeReturnsCompletableFuture.class)
			.run(failsWith(InvocationScopeReturnsCompletableFuture.class, "run()", "it returns CompletableFuture"));
	}

	@Test
	void aReactiveStreamsPublisherFailsAtStartup() {
		// Named as reactive-streams names it, without that library on the class path.
		Class<?> publisher = LibraryTypes.lockedBean("StreamingService", "org.reactivestreams.Publisher", false);
		this.contextRunner.withBean(publisher)
			.run(failsWith(publisher, "call(String)", "it returns Publisher, a reactive Publisher, whose work may "
					+ "still run after the method has returned", "return the value itself, or take the lock "
							+ "inside the asynchronous work"));
		Class<?> flux = LibraryTypes.lockedBean("FluxService", "org.reactivestreams.Publisher", true);
		this.contextRunner.withBean(flux)
			.run(failsWith(flux, "call(String)", "it returns Flux, a reactive Publisher, whose work"));
	}

	@Test
	void aKotlinSuspendFunctionFailsAtStartup() {
		// Compiled from Kotlin, "suspend fun call(id: String): Any?" takes a Continuation as its last parameter.
		Class<?> suspending = LibraryTypes.suspendingBean("SuspendingService");
		this.contextRunner.withBean(suspending)
			.run(failsWith(suspending, "call(String, Continuation)", "it is a Kotlin suspend function, whose work "
					+ "may still run after the method has returned"));
	}

	@Test
	void asyncMethodsReturningAFutureAreValid() {
		// Behind @Async the lock is taken on the executor's thread, around the whole work.
		this.contextRunner.withBean(AsyncMethods.class).withBean(AsyncClass.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anAsyncMethodDeclaredToReturnACompletionStageFailsAtStartup() {
		// @Async cannot run such a method: Spring's async advice submits Futures only.
		this.contextRunner.withBean(AsyncCompletionStage.class)
			.run(failsWith(AsyncCompletionStage.class, "supply(String)", "it returns CompletionStage",
					"put @Async on the method (declared to return a Future or CompletableFuture)"));
	}

	@Test
	void aTimeoutOnASkipFailsAtStartup() {
		this.contextRunner.withBean(TimeoutOnSkip.class)
			.run(failsWith(TimeoutOnSkip.class, "run()", "timeout '2s' has no meaning for waitMode SKIP, which never "
					+ "waits: remove it, or use waitMode BLOCK"));
	}

	@Test
	void aSkipOnAMethodReturningAValueFailsAtStartup() {
		this.contextRunner.withBean(SkipReturningValue.class)
			.run(failsWith(SkipReturningValue.class, "count()", "waitMode SKIP returns without running the method "
					+ "when the lock is held, so the method must return void or Optional, and it returns int: return "
					+ "Optional<Integer>, or use waitMode TRY"));
	}

	@Test
	void skipOnVoidAndOptionalMethodsIsValid() {
		this.contextRunner.withBean(SkipOnVoidAndOptional.class).run((context) -> assertThat(context).hasNotFailed());
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
	 * Types named as the libraries that the tests do not depend on name them (reactive-streams, the Kotlin standard
	 * library), each defined with a bean that uses it in a class loader of its own, so that no stand-in of them
	 * shadows the real library on the test class path of other tests.
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
		 * Return a bean class whose method {@code call(String)} is locked and returns the named interface, or a
		 * {@code Flux} interface that extends it.
		 */
		static Class<?> lockedBean(String beanName, String interfaceName, boolean throughSubtype) {
			DynamicType.Unloaded<?> library = BYTE_BUDDY.makeInterface().name(interfaceName).make();
			DynamicType.Unloaded<?> returned = throughSubtype ? BYTE_BUDDY
				.makeInterface(library.getTypeDescription())
				.name("reactor.core.publisher.Flux")
				.make()
				.include(library) : library;
			return BYTE_BUDDY.subclass(Object.class)
				.name(AdvisoryLockValidationTests.class.getPackageName() + "." + beanName)
				.defineMethod("call", returned.getTypeDescription(), Visibility.PUBLIC)
				.withParameters(String.class)
				.intercept(FixedValue.nullValue())
				.annotateMethod(LOCK)
				.make()
				.include(returned)
				.load(AdvisoryLockValidationTests.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
				.getLoaded();
		}

		/**
		 * Return a bean class whose method {@code call(String, Continuation)} is locked, as Kotlin compiles a
		 * suspend function.
		 */
		static Class<?> suspendingBean(String beanName) {
			DynamicType.Unloaded<?> continuation = BYTE_BUDDY.makeInterface()
				.name("kotlin.coroutines.Continuation")
				.make();
			return BYTE_BUDDY.subclass(Object.class)
				.name(AdvisoryLockValidationTests.class.getPackageName() + "." + beanName)
				.defineMethod("call", Object.class, Visibility.PUBLIC)
				.withParameters(TypeDescription.ForLoadedType.of(String.class), continuation.getTypeDescription())
				.intercept(FixedValue.nullValue())
				.annotateMethod(LOCK)
				.make()
				.include(continuation)
				.load(AdvisoryLockValidationTests.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
				.getLoaded();
		}

	}

	static class BlankNamespace {

		@AdvisoryLocked(namespace = " ", key = "#id")
		public void call(String id) {
		}

	}

	/** Ten characters, to write namespaces of a given length as compile-time constants. */
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

	@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
	@java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
	@AdvisoryLocked(namespace = "", key = "#id")
	@interface BlankLock {

	}

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

	static class LockedTwiceDirectlyAndComposed {

		@AdvisoryLocked(namespace = "n", key = "#id")
		@AccountLock
		public void call(String id) {
		}

	}

	static class LockedTwiceComposed {

		@AccountLock
		@RequestLock
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
		@AccountLock
		public void call(String id) {
		}

	}

	static class ComposedBlankNamespace {

		@BlankLock
		public void call(String id) {
		}

	}

}
