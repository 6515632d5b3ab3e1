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
 * Taking advisory locks on PostgreSQL through R2DBC ({@code r2dbc-postgresql}), on the
 * connection of the subscriber's reactive transaction: the twin of {@code jdbc}, loaded
 * only when Reactor and R2DBC are present. Depends on the root package and {@code core}
 * only. Its API is {@link io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate}; every
 * other class is package-private.
 */
@NullMarked
package io.github.advisorylock.r2dbc;

import org.jspecify.annotations.NullMarked;
