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
 * What a lock request means, decided once for the driver adapters ({@code jdbc},
 * {@code r2dbc}): here the basics (keys and slots, attempts and the wait decision,
 * settings, shutdown, the {@link io.github.advisorylock.LockAcquisitionListener
 * listeners}, failure messages); statement text in {@code core.sql}; held locks and
 * sessions in {@code core.session}; a transaction's records in {@code core.transaction};
 * plans in {@code core.plan}. It names no JDBC or R2DBC type; only {@code Reactive*}
 * classes name Reactor, so that an application without it never loads it. Internal: not
 * API, and may change in any release.
 */
@NullMarked
package io.github.advisorylock.core;

import org.jspecify.annotations.NullMarked;
