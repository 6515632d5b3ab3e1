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

package io.github.advisorylock.test;

import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.AbstractTestExecutionListener;
import org.springframework.test.context.transaction.TransactionalTestExecutionListener;

/**
 * Checks after each test method of a class annotated
 * {@link AutoConfigureAdvisoryLockTester @AutoConfigureAdvisoryLockTester} that no lock
 * the application asked for during the method is left
 * ({@link AdvisoryLockTester#assertNoLockLeft()}), unless the annotation's
 * {@code checkNoLockLeft} is {@code false}. Registered for every test through
 * {@code META-INF/spring.factories}; it does nothing for a class without the annotation.
 * <p>
 * A test execution listener rather than a JUnit extension: it is ordered before
 * {@link TransactionalTestExecutionListener}, so that its check comes after a
 * test-managed transaction has rolled back, which holds the locks taken in it until then.
 * A JUnit extension's place among the callbacks depends on where the test class declares
 * it.
 *
 * @author advisory-lock authors
 */
final class NoLockLeftTestExecutionListener extends AbstractTestExecutionListener {

	/**
	 * Before {@link TransactionalTestExecutionListener} (4000), whose rollback comes
	 * first among the listeners' after-methods, and after
	 * {@code DirtiesContextTestExecutionListener} (3000), whose after-method may close
	 * the context.
	 */
	private static final int ORDER = 3500;

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (checks(testContext)) {
			// Keys asked for at startup or by an earlier test are that time's concern.
			tester(testContext).forgetLockedKeys();
		}
	}

	@Override
	public void afterTestMethod(TestContext testContext) {
		if (checks(testContext)) {
			tester(testContext).assertNoLockLeft();
		}
	}

	private static boolean checks(TestContext testContext) {
		AutoConfigureAdvisoryLockTester annotation = TestContextAnnotationUtils
			.findMergedAnnotation(testContext.getTestClass(), AutoConfigureAdvisoryLockTester.class);
		return annotation != null && annotation.checkNoLockLeft();
	}

	private static AdvisoryLockTester tester(TestContext testContext) {
		return testContext.getApplicationContext().getBean(AdvisoryLockTester.class);
	}

}
