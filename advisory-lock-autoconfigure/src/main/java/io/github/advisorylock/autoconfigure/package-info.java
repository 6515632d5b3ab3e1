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
 * Spring Boot auto-configuration of advisory locks. Its API is
 * {@link io.github.advisorylock.autoconfigure.AdvisoryLockProperties}, the
 * {@code advisory-lock.*} properties, and the qualifier
 * {@link io.github.advisorylock.autoconfigure.InvocationLockDataSource}; the
 * auto-configuration classes are public for Spring Boot to load them, not API.
 */
@NullMarked
package io.github.advisorylock.autoconfigure;

import org.jspecify.annotations.NullMarked;
