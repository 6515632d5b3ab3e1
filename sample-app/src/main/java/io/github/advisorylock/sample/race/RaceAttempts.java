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

package io.github.advisorylock.sample.race;

import java.util.UUID;

import io.github.advisorylock.AdvisoryLocked;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * One attempt of each variant: the same steps (count the user's pending requests, work
 * for the think time, insert one if none was pending), each under a different kind of
 * concurrency control. For the demo only: the broken ones are here to be seen failing.
 */
@Component
class RaceAttempts {

	private final JdbcClient jdbc;

	private final RaceDemoProperties properties;

	RaceAttempts(JdbcClient jdbc, RaceDemoProperties properties) {
		this.jdbc = jdbc;
		this.properties = properties;
	}

	@Transactional
	public void plain(UUID userId) {
		checkThenInsert(RaceVariant.PLAIN, userId);
	}

	@Transactional
	public void forUpdate(UUID userId) {
		checkThenInsert(RaceVariant.FOR_UPDATE, userId);
	}

	@Transactional
	public void uniqueIndex(UUID userId) {
		checkThenInsert(RaceVariant.UNIQUE_INDEX, userId);
	}

	@Transactional
	@AdvisoryLocked(namespace = "race_demo", key = "#userId")
	public void advisoryLock(UUID userId) {
		checkThenInsert(RaceVariant.ADVISORY_LOCK, userId);
	}

	@Transactional(isolation = Isolation.SERIALIZABLE)
	public void serializable(UUID userId) {
		checkThenInsert(RaceVariant.SERIALIZABLE, userId);
	}

	private void checkThenInsert(RaceVariant variant, UUID userId) {
		String pendingOfUser = " FROM " + variant.table() + " WHERE user_id = ? AND status = 'pending'";
		// FOR UPDATE takes no aggregate, so that variant locks and counts the rows
		// themselves.
		int pending = (variant == RaceVariant.FOR_UPDATE)
				? this.jdbc.sql("SELECT id" + pendingOfUser + " FOR UPDATE").param(userId).query().listOfRows().size()
				: this.jdbc.sql("SELECT count(*)" + pendingOfUser).param(userId).query(Integer.class).single();
		if (pending > 0) {
			throw new LimitReachedException();
		}
		think();
		this.jdbc.sql("INSERT INTO " + variant.table() + " (id, user_id, status) VALUES (?, ?, 'pending')")
			.params(UUID.randomUUID(), userId)
			.update();
	}

	private void think() {
		try {
			Thread.sleep(this.properties.thinkTime().toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while working between check and insert", ex);
		}
	}

	/** The clean rejection: the attempt saw a pending request and inserted nothing. */
	static final class LimitReachedException extends RuntimeException {

		LimitReachedException() {
			super("A pending setup request exists", null, false, false);
		}

	}

}
