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
 * The invocation-scoped locks this process holds and their lock sessions: a session's
 * state ({@code HeldSession}), those enclosing a thread ({@code HeldLocks}) or a
 * subscriber ({@code ReactiveHeldLocks}), and each stack's session life (heartbeat,
 * dead-man switch, marker, release). On the basics of {@code core} and the statements'
 * text only. Internal: not API.
 */
@NullMarked
package io.github.advisorylock.core.session;

import org.jspecify.annotations.NullMarked;
