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

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

import io.github.advisorylock.sample.Concurrently;
import io.github.advisorylock.sample.Concurrently.Outcome;
import io.github.advisorylock.sample.InvalidRequestException;
import io.github.advisorylock.sample.NotFoundException;
import io.github.advisorylock.sample.SampleDatabaseTests;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The ledger against real PostgreSQL, with concurrent callers on independent connections:
 * opposite transfers never deadlock, withdrawals never exceed the daily limit, and money
 * is neither created nor lost.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE)
class LedgerServiceTests extends SampleDatabaseTests {

	@Autowired
	private LedgerService ledger;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void oppositeTransfersRunManyRoundsWithoutDeadlock() {
		Account a = this.ledger.open(1_000_000, 1);
		Account b = this.ledger.open(1_000_000, 1);
		int rounds = 40;
		// Half the callers move money from a to b, half from b to a, each round, on 8
		// connections at once. Without both keys in one ordered acquisition, their row
		// locks would be taken in opposite orders and deadlock.
		List<Outcome<Integer>> outcomes = Concurrently.run(8, (caller) -> {
			Account from = (caller % 2 == 0) ? a : b;
			Account to = (caller % 2 == 0) ? b : a;
			for (int round = 0; round < rounds; round++) {
				this.ledger.transfer(from.id(), to.id(), 1 + caller);
			}
			return rounds;
		});
		assertThat(outcomes).allSatisfy((outcome) -> assertThat(outcome.failure()).isNull());
		long expectedA = 1_000_000 + rounds * ((2 + 4 + 6 + 8) - (1 + 3 + 5 + 7));
		assertThat(this.ledger.get(a.id()).balance()).isEqualTo(expectedA);
		assertThat(this.ledger.get(b.id()).balance()).isEqualTo(2_000_000 - expectedA);
		assertThat(transfersBetween(a, b)).isEqualTo(8L * rounds);
	}

	@Test
	void concurrentWithdrawalsNeverExceedTheDailyLimit() {
		Account account = this.ledger.open(10_000, 1_000);
		List<Outcome<Withdrawal>> outcomes = Concurrently.run(20, (i) -> this.ledger.withdraw(account.id(), 100));
		assertThat(outcomes).filteredOn(Outcome::succeeded).hasSize(10);
		assertThat(outcomes).filteredOn((outcome) -> !outcome.succeeded())
			.allSatisfy((outcome) -> assertThat(outcome.failure()).isInstanceOf(DailyLimitExceededException.class));
		Account after = this.ledger.get(account.id());
		assertThat(after.withdrawnToday()).isEqualTo(1_000);
		assertThat(after.balance()).isEqualTo(9_000);
	}

	@Test
	void moneyIsConservedUnderConcurrentTransfersAndWithdrawals() {
		List<Account> accounts = IntStream.range(0, 4).mapToObj((i) -> this.ledger.open(1_000, 300)).toList();
		List<Outcome<Integer>> outcomes = Concurrently.run(8, (caller) -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			int done = 0;
			for (int operation = 0; operation < 30; operation++) {
				Account from = accounts.get(random.nextInt(accounts.size()));
				Account to = accounts.get(random.nextInt(accounts.size()));
				try {
					if (from == to) {
						this.ledger.withdraw(from.id(), 1 + random.nextInt(50));
					}
					else {
						this.ledger.transfer(from.id(), to.id(), 1 + random.nextInt(400));
					}
					done++;
				}
				catch (InsufficientFundsException | DailyLimitExceededException ex) {
					// a clean refusal: nothing written
				}
			}
			return done;
		});
		// Any other exception (a deadlock, a CHECK violation, a lock timeout) fails here.
		assertThat(outcomes).allSatisfy((outcome) -> assertThat(outcome.failure()).isNull());
		assertThat(outcomes.stream().mapToInt(Outcome::value).sum()).isPositive();
		List<Account> after = accounts.stream().map((account) -> this.ledger.get(account.id())).toList();
		assertThat(after).allSatisfy((account) -> {
			assertThat(account.balance()).isNotNegative();
			assertThat(account.withdrawnToday()).isLessThanOrEqualTo(300);
		});
		long balances = after.stream().mapToLong(Account::balance).sum();
		long withdrawn = this.jdbc.sql("SELECT coalesce(sum(amount), 0) FROM withdrawals WHERE account_id = ANY (?)")
			.param(accounts.stream().map(Account::id).toArray(UUID[]::new))
			.query(Long.class)
			.single();
		assertThat(balances + withdrawn).isEqualTo(4 * 1_000);
	}

	@Test
	void refusesWhatTheRulesForbidAndWritesNothing() {
		Account account = this.ledger.open(50, 1_000);
		Account other = this.ledger.open(0, 1_000);
		assertThatExceptionOfType(InsufficientFundsException.class)
			.isThrownBy(() -> this.ledger.withdraw(account.id(), 51))
			.withMessage("Account " + account.id() + " holds 50, less than 51");
		assertThatExceptionOfType(InsufficientFundsException.class)
			.isThrownBy(() -> this.ledger.transfer(account.id(), other.id(), 51));
		assertThatExceptionOfType(DailyLimitExceededException.class)
			.isThrownBy(() -> this.ledger.withdraw(this.ledger.open(5_000, 1_000).id(), 1_001))
			.withMessageContaining("would exceed its daily limit of 1000: 0 already withdrawn today");
		Account limited = this.ledger.open(5_000, 1_000);
		this.ledger.withdraw(limited.id(), 100);
		assertThatExceptionOfType(DailyLimitExceededException.class).as("no overflow of today's total")
			.isThrownBy(() -> this.ledger.withdraw(limited.id(), Long.MAX_VALUE));
		assertThatExceptionOfType(InvalidRequestException.class)
			.isThrownBy(() -> this.ledger.transfer(account.id(), account.id(), 1));
		assertThatExceptionOfType(NotFoundException.class)
			.isThrownBy(() -> this.ledger.transfer(account.id(), UUID.randomUUID(), 1));
		assertThat(this.ledger.get(account.id()).balance()).isEqualTo(50);
		assertThat(this.ledger.get(other.id()).balance()).isZero();
	}

	@Test
	void aNegativeBalanceIsRefusedByTheDatabaseEvenWithoutTheService() {
		Account account = this.ledger.open(10, 1_000);
		assertThatExceptionOfType(DataIntegrityViolationException.class)
			.isThrownBy(() -> this.jdbc.sql("UPDATE accounts SET balance = balance - 11 WHERE id = ?")
				.param(account.id())
				.update());
	}

	private long transfersBetween(Account a, Account b) {
		return this.jdbc
			.sql("SELECT count(*) FROM transfers WHERE from_account_id IN (?, ?) AND to_account_id IN (?, ?)")
			.params(a.id(), b.id(), a.id(), b.id())
			.query(Long.class)
			.single();
	}

}
