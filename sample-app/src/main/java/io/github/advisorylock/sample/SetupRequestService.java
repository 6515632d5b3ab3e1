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

package io.github.advisorylock.sample;

import java.util.List;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLocked;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates setup requests, at most one pending per user.
 *
 * <p>The rule is a check followed by an insert. Under READ COMMITTED two concurrent calls would both pass the check;
 * the advisory lock on the user serializes them, and the second one sees the first one's row and is rejected cleanly.
 * A partial unique index (see {@code schema.sql}) backs the rule up as long as the limit is one; a limit of more than
 * one, which no constraint can express, rests on the lock alone.
 */
@Service
public class SetupRequestService {

	static final int PENDING_LIMIT = 1;

	private final JdbcClient jdbc;

	SetupRequestService(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Create a pending setup request for a user.
	 * @param userId the user
	 * @return the new request's id
	 * @throws PendingLimitReachedException if the user already has a pending request
	 */
	@Transactional
	@AdvisoryLocked(namespace = "setup_request", key = "#userId")
	public UUID create(UUID userId) {
		int pending = this.jdbc.sql("SELECT count(*) FROM setup_requests WHERE user_id = ? AND status = 'pending'")
			.param(userId)
			.query(Integer.class)
			.single();
		if (pending >= PENDING_LIMIT) {
			throw new PendingLimitReachedException(userId, PENDING_LIMIT);
		}
		UUID id = UUID.randomUUID();
		this.jdbc.sql("INSERT INTO setup_requests (id, user_id, status) VALUES (?, ?, 'pending')")
			.params(id, userId)
			.update();
		return id;
	}

	/**
	 * Return the ids of a user's pending requests.
	 * @param userId the user
	 * @return the ids, oldest first
	 */
	@Transactional(readOnly = true)
	public List<UUID> pending(UUID userId) {
		return this.jdbc
			.sql("SELECT id FROM setup_requests WHERE user_id = ? AND status = 'pending' ORDER BY created_at, id")
			.param(userId)
			.query(UUID.class)
			.list();
	}

}
