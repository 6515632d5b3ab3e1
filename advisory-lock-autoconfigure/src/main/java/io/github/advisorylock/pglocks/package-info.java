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
 * Reading {@code pg_locks}: who holds the advisory locks, for the message of a busy lock
 * ({@link io.github.advisorylock.pglocks.PgLocksHolderDiagnosis}) and for the
 * {@code advisorylocks} endpoint, over JDBC
 * ({@link io.github.advisorylock.pglocks.AdvisoryLockInspector}, on
 * {@link io.github.advisorylock.pglocks.DirectConnections} outside the application's
 * pool) or R2DBC ({@link io.github.advisorylock.pglocks.R2dbcAdvisoryLockInspector}, on
 * connections of the driver's own). Depends on the root package, {@code core.sql} and
 * {@code hikari}. Internal: not API, and may change in any release.
 */
@NullMarked
package io.github.advisorylock.pglocks;

import org.jspecify.annotations.NullMarked;
