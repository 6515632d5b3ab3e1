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
import java.time.Duration;
import java.util.List;

import io.github.advisorylock.LockMode;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import org.jspecify.annotations.Nullable;

/**
 * The parsed, validated {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked} of
 * one method.
 *
 * @param method the annotated method, as declared on the target class
 * @param namespace the namespace, not blank
 * @param keyExpressions the SpEL key expressions, at least one
 * @param parameterIndexes for each expression, the index of the parameter it merely
 * names, or {@code -1} when it must be evaluated
 * @param mode exclusive or shared
 * @param waitMode block, try or skip
 * @param timeout the BLOCK timeout, or {@code null} for the configured default (and for
 * TRY and SKIP)
 * @param scope transaction or invocation
 * @param dataSource the bean name of the {@code DataSource} to lock on, or {@code null}
 * for the one of the current transaction
 * @param checksReturnedWork see {@link ReturnedWork#checksReturnedWork}
 * @param reactive what the method returns to the lock's advice where its lock is taken at
 * subscription, or {@code null} where it is taken before the method runs
 * @param caller names the method in every message about its lock, such as
 * {@code @AdvisoryLocked com.example.Orders.place(Order)}
 * @param permits how many calls may hold the lock at once: 1 for a plain lock
 * @author advisory-lock authors
 */
record AdvisoryLockAttribute(Method method, String namespace, List<String> keyExpressions,
		List<Integer> parameterIndexes, LockMode mode, WaitMode waitMode, @Nullable Duration timeout, LockScope scope,
		@Nullable String dataSource, boolean checksReturnedWork, ReturnedWork.@Nullable ReactiveReturn reactive,
		String caller, int permits) {

}
