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

package io.github.advisorylock.sample.setup;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.sample.InvalidRequestException;
import io.github.advisorylock.sample.NotFoundException;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Keeps each user's pending setup requests within the plan's limit.
 *
 * <p>
 * The limit depends on the plan (free 1, pro 3), so no unique constraint can express it:
 * {@link #create} counts the pending requests and then inserts, and
 * {@code @AdvisoryLocked} makes those two steps run one request at a time per user.
 * Without the lock, concurrent requests would all count the same number and all insert
 * (the race demo in {@code io.github.advisorylock.sample.race} shows it).
 */
@Service
public class SetupRequestService {

	private static final String COLUMNS = "id, user_id, status, created_at";

	private final JdbcClient jdbc;

	private final UserService users;

	SetupRequestService(JdbcClient jdbc, UserService users) {
		this.jdbc = jdbc;
		this.users = users;
	}

	/**
	 * Create a pending setup request for a user, if the user's plan allows one more.
	 * @param userId the user
	 * @return the new request
	 * @throws NotFoundException if there is no such user
	 * @throws PendingLimitReachedException if the user already has as many pending
	 * requests as the plan allows
	 */
	@Transactional
	@AdvisoryLocked(namespace = "setup_request", key = "#userId")
	public SetupRequest create(UUID userId) {
		// Under the lock, and at READ COMMITTED: this count sees every request committed
		// by whoever held it before.
		User user = this.users.get(userId);
		int pending = this.jdbc.sql("SELECT count(*) FROM setup_requests WHERE user_id = ? AND status = 'pending'")
			.param(userId)
			.query(Integer.class)
			.single();
		if (pending >= user.pendingLimit()) {
			throw new PendingLimitReachedException(user);
		}
		return this.jdbc
			.sql("INSERT INTO setup_requests (id, user_id, status) VALUES (?, ?, 'pending') RETURNING " + COLUMNS)
			.params(UUID.randomUUID(), userId)
			.query(SetupRequestService::setupRequest)
			.single();
	}

	/**
	 * Return a user's setup requests.
	 * @param userId the user
	 * @param status only requests in this status, or {@code null} for all
	 * @return the requests, oldest first
	 * @throws NotFoundException if there is no such user
	 * @throws InvalidRequestException if the status is none of
	 * {@link SetupRequest#STATUSES}
	 */
	@Transactional(readOnly = true)
	public List<SetupRequest> list(UUID userId, @Nullable String status) {
		if (status != null && !SetupRequest.STATUSES.contains(status)) {
			throw new InvalidRequestException(
					"Unknown status '" + status + "': use one of " + String.join(", ", SetupRequest.STATUSES));
		}
		this.users.get(userId);
		String where = (status != null) ? "user_id = ? AND status = ?" : "user_id = ?";
		return this.jdbc.sql("SELECT " + COLUMNS + " FROM setup_requests WHERE " + where + " ORDER BY created_at, id")
			.params((status != null) ? List.of(userId, status) : List.of(userId))
			.query(SetupRequestService::setupRequest)
			.list();
	}

	/**
	 * Mark a pending request completed, which frees a slot of the plan.
	 * @param userId the user
	 * @param requestId the request
	 * @return the request, completed
	 * @throws NotFoundException if the user has no such request
	 * @throws RequestNotPendingException if the request is already completed, cancelled
	 * or expired
	 */
	@Transactional
	public SetupRequest complete(UUID userId, UUID requestId) {
		return finish(userId, requestId, "completed");
	}

	/**
	 * Cancel a pending request, which frees a slot of the plan.
	 * @param userId the user
	 * @param requestId the request
	 * @return the request, cancelled
	 * @throws NotFoundException if the user has no such request
	 * @throws RequestNotPendingException if the request is already completed, cancelled
	 * or expired
	 */
	@Transactional
	public SetupRequest cancel(UUID userId, UUID requestId) {
		return finish(userId, requestId, "cancelled");
	}

	// No advisory lock here: only an insert can break the limit, and this conditional
	// UPDATE is atomic on its own (of two concurrent ones, the second re-checks the row
	// after the first commits and matches nothing).
	private SetupRequest finish(UUID userId, UUID requestId, String status) {
		return this.jdbc
			.sql("UPDATE setup_requests SET status = ? WHERE id = ? AND user_id = ? AND status = 'pending' RETURNING "
					+ COLUMNS)
			.params(status, requestId, userId)
			.query(SetupRequestService::setupRequest)
			.optional()
			.orElseThrow(() -> notFinishable(userId, requestId));
	}

	private RuntimeException notFinishable(UUID userId, UUID requestId) {
		return this.jdbc.sql("SELECT status FROM setup_requests WHERE id = ? AND user_id = ?")
			.params(requestId, userId)
			.query(String.class)
			.optional()
			.<RuntimeException>map((current) -> new RequestNotPendingException(requestId, current))
			.orElseGet(() -> new NotFoundException("Setup request", requestId));
	}

	private static SetupRequest setupRequest(ResultSet rs, int row) throws SQLException {
		return new SetupRequest(rs.getObject("id", UUID.class), rs.getObject("user_id", UUID.class),
				rs.getString("status"), rs.getObject("created_at", OffsetDateTime.class));
	}

}
