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

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import org.junit.jupiter.api.Test;

import org.springframework.aop.SpringProxy;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of what Spring's AOT processing, and so a native image, gets from the annotation
 * and its post processor: the annotated methods registered for reflection, and the class
 * of every proxy the post processor will make generated at build time.
 */
class AdvisoryLockAotTests {

	private final AdvisoryLockBeanPostProcessor postProcessor = new AdvisoryLockBeanPostProcessor(() -> {
		throw new AssertionError("no call is made");
	});

	AdvisoryLockAotTests() {
		this.postProcessor.setBeanFactory(new DefaultListableBeanFactory());
		this.postProcessor.setProxyTargetClass(true);
	}

	@Test
	void annotatedMethodsAreRegisteredForInvocation() {
		RuntimeHints hints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Annotated.class);
		assertThat(invocableMethods(hints, Annotated.class)).containsExactlyInAnyOrder("transaction", "composed");
	}

	@Test
	void theProxyClassOfAnInvocationScopedOnlyBeanIsKnownBeforeTheBeanExists() {
		Class<?> predicted = this.postProcessor.determineBeanType(InvocationOnly.class, "invocationOnly");
		assertThat(AopUtils
			.isCglibProxy(this.postProcessor.postProcessAfterInitialization(new InvocationOnly(), "invocationOnly")))
			.isTrue();
		assertThat(predicted).isNotEqualTo(InvocationOnly.class)
			.isSameAs(this.postProcessor.postProcessAfterInitialization(new InvocationOnly(), "invocationOnly")
				.getClass());
	}

	@Test
	void theProxyClassOfATransactionScopedBeanIsKnownBeforeTheBeanExists() {
		Class<?> predicted = this.postProcessor.determineBeanType(TransactionOnly.class, "transactionOnly");
		assertThat(predicted).isNotEqualTo(TransactionOnly.class)
			.isSameAs(this.postProcessor.postProcessAfterInitialization(new TransactionOnly(), "transactionOnly")
				.getClass());
	}

	@Test
	void aProxyPredictedByAnEarlierPostProcessorIsKept() {
		// The advisors are added to that proxy at runtime: a class of our own would never
		// be used.
		Class<?> earlier = this.postProcessor.determineBeanType(TransactionOnly.class, "transactionOnly");
		assertThat(SpringProxy.class.isAssignableFrom(earlier)).isTrue();
		assertThat(this.postProcessor.determineBeanType(earlier, "transactionOnly")).isSameAs(earlier);
	}

	@Test
	void aBeanWithoutTheAnnotationKeepsItsClass() {
		assertThat(this.postProcessor.determineBeanType(Plain.class, "plain")).isSameAs(Plain.class);
	}

	@Test
	void aheadOfTimeProcessingGeneratesTheProxyClassAndItsHints() {
		GenericApplicationContext context = new GenericApplicationContext();
		RootBeanDefinition postProcessor = new RootBeanDefinition(AdvisoryLockBeanPostProcessor.class);
		postProcessor.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
		postProcessor.getConstructorArgumentValues()
			.addGenericArgumentValue(new RootBeanDefinition(AdvisoryLockOperationsSupplier.class));
		context.registerBeanDefinition("advisoryLockBeanPostProcessor", postProcessor);
		context.registerBeanDefinition("job", new RootBeanDefinition(AheadOfTimeJob.class));
		InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "AotTest")), files);
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		String proxy = AheadOfTimeJob.class.getName() + "$$SpringCGLIB$$0";
		assertThat(files.getGeneratedFiles(Kind.CLASS)).containsKey(proxy.replace('.', '/') + ".class");
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(proxy)))
			.accepts(generationContext.getRuntimeHints());
	}

	private static Set<String> invocableMethods(RuntimeHints hints, Class<?> type) {
		TypeHint hint = hints.reflection().getTypeHint(type);
		assertThat(hint).isNotNull();
		return hint.methods()
			.filter((method) -> method.getMode() == ExecutableMode.INVOKE)
			.map((method) -> method.getName())
			.collect(Collectors.toSet());
	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@AdvisoryLocked(namespace = "composed", key = "#id")
	@interface Composed {

	}

	static class Annotated {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public void transaction(String id) {
		}

		@Composed
		public void composed(String id) {
		}

		public void plain() {
		}

	}

	static class InvocationOnly {

		@AdvisoryLocked(namespace = "n", key = "'job'", scope = LockScope.INVOCATION)
		public void invocation() {
		}

	}

	static class TransactionOnly {

		@AdvisoryLocked(namespace = "n", key = "#id")
		public void transaction(String id) {
		}

	}

	/**
	 * Only in the AOT processing test, so that no other test has generated its proxy
	 * class before.
	 */
	public static class AheadOfTimeJob {

		@AdvisoryLocked(namespace = "n", key = "'job'", scope = LockScope.INVOCATION)
		public void invocation() {
		}

	}

	static class Plain {

		public void call() {
		}

	}

	/** The post processor's argument, as a bean definition can give it. */
	public static class AdvisoryLockOperationsSupplier implements Supplier<AdvisoryLockOperations> {

		@Override
		public AdvisoryLockOperations get() {
			throw new AssertionError("no call is made");
		}

	}

}
