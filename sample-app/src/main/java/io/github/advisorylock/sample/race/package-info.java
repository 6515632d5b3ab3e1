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
 * A race demo, for teaching only: the same "check, then insert a pending setup request"
 * run concurrently under five kinds of concurrency control, two of them broken on
 * purpose. Nothing here is reachable from the REST API; start it with the
 * {@code race-demo} profile (see docs/sample.md).
 */
@NullMarked
package io.github.advisorylock.sample.race;

import org.jspecify.annotations.NullMarked;
