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

/**
 * The test kit: what an application's own tests need to prove that its code is locked,
 * and that it survives a lock it cannot get. Add {@code advisory-lock-test} in test
 * scope, annotate a test class with {@link AutoConfigureAdvisoryLockTester}, and inject
 * the {@link AdvisoryLockTester}. It works against the application's own PostgreSQL,
 * through its {@code DataSource} or R2DBC {@code ConnectionFactory}, never a mock.
 */
@NullMarked
package io.github.advisorylock.test;

import org.jspecify.annotations.NullMarked;
