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

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Annotation on a test class that adds an {@link AdvisoryLockTester} bean to the test's
 * application context, for injection into the test. Each test method is then followed by
 * the check that no advisory lock is left ({@link #checkNoLockLeft()}). It goes with
 * {@code @SpringBootTest} and the test slices that include the starter's locks
 * ({@code @JdbcTest}, {@code @DataJdbcTest}, {@code @DataJpaTest},
 * {@code @DataR2dbcTest}):
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureAdvisoryLockTester
 * class SetupRequestServiceTests {
 *
 *     &#64;Autowired
 *     AdvisoryLockTester locks;
 *
 * }
 * </pre>
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see AdvisoryLockTesterAutoConfiguration
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(AdvisoryLockTesterAutoConfiguration.class)
public @interface AutoConfigureAdvisoryLockTester {

	/**
	 * Whether each test method of the class is followed by
	 * {@link AdvisoryLockTester#assertNoLockLeft()}, after a test-managed transaction has
	 * rolled back: the test fails if a lock the application asked for during it is still
	 * held or awaited, or a lock held from outside was not released. Switch it off for
	 * test methods that run in parallel in one JVM (JUnit's parallel execution), whose
	 * locks would be seen by each other's checks.
	 * @return whether to check after each test method
	 */
	boolean checkNoLockLeft() default true;

}
