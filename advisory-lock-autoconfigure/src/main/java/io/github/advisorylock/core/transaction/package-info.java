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
 * The keys a transaction took ({@code TransactionLockRecord}), followed through suspend,
 * resume and savepoints until the transaction ends by
 * {@code TransactionLockSynchronization} and its reactive twin. On the basics of
 * {@code core} and the held sessions only. Internal: not API.
 */
@NullMarked
package io.github.advisorylock.core.transaction;

import org.jspecify.annotations.NullMarked;
