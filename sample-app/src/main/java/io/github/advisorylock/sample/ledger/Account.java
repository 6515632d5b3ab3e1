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

import java.util.UUID;

/**
 * An account of the ledger. Amounts are in minor units (cents).
 *
 * @param id the account's id
 * @param balance what the account holds, never negative
 * @param dailyWithdrawalLimit the most that withdrawals may take from it in one day (UTC)
 * @param withdrawnToday what withdrawals took from it today (UTC)
 */
public record Account(UUID id, long balance, long dailyWithdrawalLimit, long withdrawnToday) {
}
