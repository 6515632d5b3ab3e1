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

import java.net.URI;
import java.util.UUID;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The ledger over HTTP. Amounts are whole numbers of minor units (cents). Errors are
 * problem details (see {@code ApiExceptionHandler}).
 */
@RestController
class LedgerController {

	private final LedgerService ledger;

	LedgerController(LedgerService ledger) {
		this.ledger = ledger;
	}

	@PostMapping("/accounts")
	ResponseEntity<Account> open(@Valid @RequestBody NewAccount body) {
		Account account = this.ledger.open(body.balance(), body.dailyWithdrawalLimit());
		return ResponseEntity.created(URI.create("/accounts/" + account.id())).body(account);
	}

	@GetMapping("/accounts/{accountId}")
	Account account(@PathVariable UUID accountId) {
		return this.ledger.get(accountId);
	}

	@PostMapping("/accounts/{accountId}/withdrawals")
	ResponseEntity<Withdrawal> withdraw(@PathVariable UUID accountId, @Valid @RequestBody NewWithdrawal body) {
		return ResponseEntity.status(HttpStatus.CREATED).body(this.ledger.withdraw(accountId, body.amount()));
	}

	@PostMapping("/transfers")
	ResponseEntity<Transfer> transfer(@Valid @RequestBody NewTransfer body) {
		// Before the service takes the account's lock: a transfer to oneself gets its 400
		// at once, also while another request holds that lock past the timeout, which
		// would otherwise answer it with a busy 409.
		LedgerService.requireDistinct(body.from(), body.to());
		return ResponseEntity.status(HttpStatus.CREATED)
			.body(this.ledger.transfer(body.from(), body.to(), body.amount()));
	}

	record NewAccount(@NotNull @PositiveOrZero @Max(LedgerService.MAX_AMOUNT) Long balance,
			@NotNull @Positive @Max(LedgerService.MAX_AMOUNT) Long dailyWithdrawalLimit) {
	}

	record NewWithdrawal(@NotNull @Positive @Max(LedgerService.MAX_AMOUNT) Long amount) {
	}

	record NewTransfer(@NotNull UUID from, @NotNull UUID to,
			@NotNull @Positive @Max(LedgerService.MAX_AMOUNT) Long amount) {
	}

}
