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
 * The text of every statement the library sends, shared by both drivers, with the values
 * their rows are read into: locks ({@link io.github.advisorylock.core.sql.LockSql}),
 * limits ({@link io.github.advisorylock.core.sql.PermitSql}), fenced writes
 * ({@link io.github.advisorylock.core.sql.FenceSql}) and reads of {@code pg_locks}
 * ({@link io.github.advisorylock.core.sql.PgLocksSql}). It depends on the root package
 * only: what a result means for a call is decided in {@code core}. Internal: not API.
 *
 * <p>
 * Every function, operator, type and relation a statement names is found in
 * {@code pg_catalog} whatever the {@code search_path}: functions and relations are
 * qualified ({@code pg_catalog.pg_try_advisory_xact_lock}), operators written
 * {@code OPERATOR(pg_catalog.=)}, casts to SQL's own type names ({@code bigint},
 * {@code integer}), which the grammar resolves in {@code pg_catalog}, as it does
 * {@code CASE}, {@code COALESCE}, {@code GREATEST} and {@code extract}. An
 * {@code OPERATOR()} has one precedence, whatever the operator: group with parentheses
 * (docs/decisions.md, "Schema-qualified statements").
 */
@NullMarked
package io.github.advisorylock.core.sql;

import org.jspecify.annotations.NullMarked;
