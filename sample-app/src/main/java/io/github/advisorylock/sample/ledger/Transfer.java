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

package io.github.advisorylock.sample.ledger;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * Money moved from one account to another.
 *
 * @param id the transfer's id
 * @param from the account debited
 * @param to the account credited
 * @param amount the amount in minor units, positive
 * @param createdAt when it happened
 */
public record Transfer(UUID id, UUID from, UUID to, long amount, OffsetDateTime createdAt) {
}
