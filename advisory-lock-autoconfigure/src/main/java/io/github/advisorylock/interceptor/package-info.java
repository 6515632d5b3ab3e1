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
 * The interception behind {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked}:
 * the annotation's parsing and validation, the key expressions, the interceptor and the
 * post processor that applies it. Internal: not API, and may change in any release.
 */
@NullMarked
package io.github.advisorylock.interceptor;

import org.jspecify.annotations.NullMarked;
