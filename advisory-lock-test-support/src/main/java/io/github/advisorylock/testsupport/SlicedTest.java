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

package io.github.advisorylock.testsupport;

import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.SuperMethodCall;
import net.bytebuddy.implementation.attribute.MethodAttributeAppender;
import net.bytebuddy.matcher.ElementMatchers;

import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.TestContextManager;

/**
 * Runs a user's test class under a test slice annotation whose package differs between
 * the Spring Boot lines ({@link BootAutoConfigurations#jdbcTest()} and the others): the
 * annotation is added to a generated subclass, and one test method runs through Spring's
 * {@link TestContextManager}, as the {@code SpringExtension} runs it. One test source
 * then tests a slice on both lines.
 */
public final class SlicedTest {

	private SlicedTest() {
	}

	/**
	 * Run one method of a user's test class annotated with a slice, as the
	 * {@code SpringExtension} would: the test's transaction, if the slice has one, begins
	 * before it and rolls back after it. Spring finds the generated class through the
	 * thread's context class loader.
	 * @param userTest the test class as an application writes it, but for the slice
	 * annotation
	 * @param slice the slice annotation
	 * @param methodName the test method to run
	 * @throws Throwable what the test method threw
	 */
	public static void run(Class<?> userTest, Class<? extends Annotation> slice, String methodName) throws Throwable {
		Class<?> testClass = userTestIn(userTest, slice);
		Thread thread = Thread.currentThread();
		ClassLoader classLoader = thread.getContextClassLoader();
		thread.setContextClassLoader(testClass.getClassLoader());
		try {
			runMethod(testClass, methodName);
		}
		finally {
			thread.setContextClassLoader(classLoader);
		}
	}

	private static void runMethod(Class<?> testClass, String methodName) throws Throwable {
		TestContextManager manager = new TestContextManager(testClass);
		Object test = testClass.getDeclaredConstructor().newInstance();
		Method method = testClass.getMethod(methodName);
		Throwable failure = null;
		manager.beforeTestClass();
		try {
			manager.prepareTestInstance(test);
			manager.beforeTestMethod(test, method);
			manager.beforeTestExecution(test, method);
			try {
				method.invoke(test);
			}
			catch (InvocationTargetException ex) {
				failure = ex.getCause();
			}
			manager.afterTestExecution(test, method, failure);
			manager.afterTestMethod(test, method, failure);
		}
		finally {
			// Each generated class runs once: close its context, and its pool, now.
			manager.getTestContext().markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
			manager.afterTestClass();
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Generate the subclass of a user's test class with the slice annotation, in a class
	 * loader of its own that also serves its class file, which Spring's test context
	 * reads as it would read a compiled test's.
	 */
	private static Class<?> userTestIn(Class<?> userTest, Class<? extends Annotation> slice) {
		return new ByteBuddy(ClassFileVersion.JAVA_V17).subclass(userTest)
			.name(userTest.getName() + "In" + slice.getSimpleName())
			.annotateType(AnnotationDescription.Builder.ofType(slice).build())
			// Declared again, with their annotations, as test methods are declared by the
			// annotated class.
			.method(ElementMatchers.isDeclaredBy(userTest).and(ElementMatchers.isPublic()))
			.intercept(SuperMethodCall.INSTANCE)
			.attribute(MethodAttributeAppender.ForInstrumentedMethod.INCLUDING_RECEIVER)
			.make()
			.load(userTest.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER_PERSISTENT)
			.getLoaded();
	}

}
