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
 * What a lock request means, decided once for the driver adapters ({@code jdbc} and
 * {@code r2dbc}): the plans of a transaction-scoped and of an invocation-scoped request
 * ({@link io.github.advisorylock.core.TransactionLockPlan},
 * {@link io.github.advisorylock.core.InvocationLockPlan}), which each stack executes in
 * its own package; and beside it the keys of a call, the text of the lock, fence and
 * {@code pg_locks} statements, the wait decision, the failure messages, the fan-out to
 * the {@link io.github.advisorylock.LockAcquisitionListener listeners}, the template's
 * shutdown, what makes a lock session lost, and the registry of the locks a caller holds.
 * Depends on the root package only and names no JDBC or R2DBC type; only its
 * {@code Reactive*} classes name Reactor, and they are loaded only for reactive calls.
 * Internal: not API, and may change in any release.
 */
@NullMarked
package io.github.advisorylock.core;

import org.jspecify.annotations.NullMarked;
