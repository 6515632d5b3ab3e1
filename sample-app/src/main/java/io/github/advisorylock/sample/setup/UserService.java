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

import java.util.UUID;

import io.github.advisorylock.sample.NotFoundException;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates users and reads their plans.
 */
@Service
public class UserService {

	private final JdbcClient jdbc;

	UserService(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Create a user on a plan.
	 * @param plan the plan
	 * @return the new user
	 */
	@Transactional
	public User create(Plan plan) {
		User user = new User(UUID.randomUUID(), plan);
		this.jdbc.sql("INSERT INTO users (id, plan) VALUES (?, ?)").params(user.id(), plan.id()).update();
		return user;
	}

	/**
	 * Return a user.
	 * @param userId the user's id
	 * @return the user
	 * @throws NotFoundException if there is no such user
	 */
	@Transactional(readOnly = true)
	public User get(UUID userId) {
		return this.jdbc.sql("SELECT plan FROM users WHERE id = ?")
			.param(userId)
			.query((rs, row) -> new User(userId, Plan.fromId(rs.getString("plan"))))
			.optional()
			.orElseThrow(() -> new NotFoundException("User", userId));
	}

}
