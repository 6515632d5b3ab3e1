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
 * Taking advisory locks on PostgreSQL through JDBC, on the current transaction's
 * connection or, for an invocation scope, on one of the call's own. Depends on the root
 * package, {@code core}, {@code hikari} and {@code pglocks}. Its API is
 * {@link io.github.advisorylock.jdbc.AdvisoryLockTemplate}; every other class is
 * package-private.
 */
@NullMarked
package io.github.advisorylock.jdbc;

import org.jspecify.annotations.NullMarked;
