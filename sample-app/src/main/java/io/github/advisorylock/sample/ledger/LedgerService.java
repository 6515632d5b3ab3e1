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

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.sample.InvalidRequestException;
import io.github.advisorylock.sample.NotFoundException;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A ledger of accounts: withdrawals within a daily limit, and transfers between accounts.
 *
 * <p>
 * Every operation that reads a balance or today's withdrawals and then writes takes the
 * advisory lock of each account it touches, in the one namespace {@code account}, so
 * withdrawals and transfers of an account run one at a time and each sees what the
 * previous one committed. "Today's withdrawals stay at most the daily limit" is a sum
 * over rows, which no constraint can express; "a balance is never negative" is a
 * {@code CHECK}, kept as the last line of defence behind the checks made here under the
 * lock, which turn it into a clean 409.
 */
@Service
public class LedgerService {

	private static final String ACCOUNT = "SELECT a.id, a.balance, a.daily_withdrawal_limit, "
			+ "(SELECT coalesce(sum(w.amount), 0) FROM withdrawals w WHERE w.account_id = a.id "
			+ "AND w.created_at >= date_trunc('day', now(), 'UTC')) AS withdrawn_today FROM accounts a WHERE a.id = ?";

	/**
	 * The largest amount, opening balance or daily limit the API accepts, in minor units
	 * (ten billion). Bounding every amount keeps each sum of them far inside
	 * {@code bigint}: no balance can overflow.
	 */
	public static final long MAX_AMOUNT = 1_000_000_000_000L;

	private final JdbcClient jdbc;

	private final AdvisoryLockOperations locks;

	LedgerService(JdbcClient jdbc, AdvisoryLockOperations locks) {
		this.jdbc = jdbc;
		this.locks = locks;
	}

	/**
	 * Open an account.
	 * @param balance the opening balance, not negative
	 * @param dailyWithdrawalLimit the most that withdrawals may take in one day, positive
	 * @return the new account
	 */
	@Transactional
	public Account open(long balance, long dailyWithdrawalLimit) {
		UUID id = UUID.randomUUID();
		this.jdbc.sql("INSERT INTO accounts (id, balance, daily_withdrawal_limit) VALUES (?, ?, ?)")
			.params(id, balance, dailyWithdrawalLimit)
			.update();
		return new Account(id, balance, dailyWithdrawalLimit, 0);
	}

	/**
	 * Return an account, with what withdrawals took from it today.
	 * @param accountId the account's id
	 * @return the account
	 * @throws NotFoundException if there is no such account
	 */
	@Transactional(readOnly = true)
	public Account get(UUID accountId) {
		return find(accountId);
	}

	/**
	 * Withdraw money from an account, if its balance and today's limit allow.
	 * @param accountId the account
	 * @param amount the amount in minor units, positive
	 * @return the withdrawal
	 * @throws NotFoundException if there is no such account
	 * @throws DailyLimitExceededException if today's withdrawals would exceed the
	 * account's daily limit
	 * @throws InsufficientFundsException if the account holds less than the amount
	 */
	@Transactional
	@AdvisoryLocked(namespace = "account", key = "#accountId")
	public Withdrawal withdraw(UUID accountId, long amount) {
		Account account = find(accountId);
		// Subtracting, since what is left today can't overflow where withdrawn + amount
		// could.
		if (amount > account.dailyWithdrawalLimit() - account.withdrawnToday()) {
			throw new DailyLimitExceededException(accountId, amount, account.withdrawnToday(),
					account.dailyWithdrawalLimit());
		}
		debit(account, amount);
		return this.jdbc
			.sql("INSERT INTO withdrawals (id, account_id, amount) VALUES (?, ?, ?) "
					+ "RETURNING id, account_id, amount, created_at")
			.params(UUID.randomUUID(), accountId, amount)
			.query((rs, row) -> new Withdrawal(uuid(rs, "id"), uuid(rs, "account_id"), rs.getLong("amount"),
					rs.getObject("created_at", OffsetDateTime.class)))
			.single();
	}

	/**
	 * Move money from one account to another, if the first holds enough.
	 * <p>
	 * Both accounts are locked, in ascending order of their keys whichever way the money
	 * moves, so that a withdrawal from either waits, and so that two opposite transfers
	 * never take the accounts' row locks in opposite orders, which would deadlock.
	 * @param from the account debited
	 * @param to the account credited
	 * @param amount the amount in minor units, positive
	 * @return the transfer
	 * @throws InvalidRequestException if both accounts are the same
	 * @throws NotFoundException if either account does not exist
	 * @throws InsufficientFundsException if the first account holds less than the amount
	 */
	@Transactional
	@AdvisoryLocked(namespace = "account", key = { "#from", "#to" })
	public Transfer transfer(UUID from, UUID to, long amount) {
		requireDistinct(from, to);
		Account source = find(from);
		find(to);
		debit(source, amount);
		this.jdbc.sql("UPDATE accounts SET balance = balance + ? WHERE id = ?").params(amount, to).update();
		return this.jdbc
			.sql("INSERT INTO transfers (id, from_account_id, to_account_id, amount) VALUES (?, ?, ?, ?) "
					+ "RETURNING id, from_account_id, to_account_id, amount, created_at")
			.params(UUID.randomUUID(), from, to, amount)
			.query((rs, row) -> new Transfer(uuid(rs, "id"), uuid(rs, "from_account_id"), uuid(rs, "to_account_id"),
					rs.getLong("amount"), rs.getObject("created_at", OffsetDateTime.class)))
			.single();
	}

	/**
	 * Refuse a transfer from an account to itself.
	 * @param from the account debited
	 * @param to the account credited
	 * @throws InvalidRequestException if both are the same
	 */
	static void requireDistinct(UUID from, UUID to) {
		if (from.equals(to)) {
			throw new InvalidRequestException("A transfer needs two different accounts, got " + from + " twice");
		}
	}

	private void debit(Account account, long amount) {
		// The balance was read before this check: only the account's lock keeps it
		// current. A new caller that reaches this through a method without
		// @AdvisoryLocked, or through a call on 'this', fails here, loudly.
		this.locks.assertHeld("account", account.id());
		if (account.balance() < amount) {
			throw new InsufficientFundsException(account.id(), amount, account.balance());
		}
		this.jdbc.sql("UPDATE accounts SET balance = balance - ? WHERE id = ?").params(amount, account.id()).update();
	}

	private Account find(UUID accountId) {
		return this.jdbc.sql(ACCOUNT)
			.param(accountId)
			.query((rs, row) -> new Account(accountId, rs.getLong("balance"), rs.getLong("daily_withdrawal_limit"),
					rs.getLong("withdrawn_today")))
			.optional()
			.orElseThrow(() -> new NotFoundException("Account", accountId));
	}

	private static UUID uuid(ResultSet rs, String column) throws SQLException {
		return rs.getObject(column, UUID.class);
	}

}
