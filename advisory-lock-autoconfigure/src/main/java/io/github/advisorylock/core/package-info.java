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
 * {@code r2dbc}), in rooms: the basics here (the keys of a call and a limit's slots, an
 * attempt's outcome and the wait decision, the template's settings and shutdown, the
 * fan-out to the {@link io.github.advisorylock.LockAcquisitionListener listeners}, every
 * failure message); the statements' text in {@code core.sql}; the held locks and the lock
 * sessions in {@code core.session}; the records of a transaction's keys in
 * {@code core.transaction}; the plans each stack executes in {@code core.plan}. It names
 * no JDBC or R2DBC type; only its {@code Reactive*} classes name Reactor, and they are
 * loaded only for reactive calls. Internal: not API, and may change in any release.
 */
@NullMarked
package io.github.advisorylock.core;

import org.jspecify.annotations.NullMarked;
