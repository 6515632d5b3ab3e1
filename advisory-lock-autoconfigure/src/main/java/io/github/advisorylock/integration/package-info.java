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
 * A Spring Integration {@code LockRegistry} on invocation-scoped advisory locks
 * ({@link io.github.advisorylock.integration.AdvisoryLockRegistry}), for leader election
 * and message-handler locking without a lock table. Depends on the root package only. Its
 * API is that class and {@link io.github.advisorylock.integration.FencedLock}, the lock
 * it gives.
 */
@NullMarked
package io.github.advisorylock.integration;

import org.jspecify.annotations.NullMarked;
