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

package io.github.advisorylock.sample.report;

import java.time.Duration;

import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.sample.setup.Plan;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reports on a plan's users. The query reads every request of every user of the plan: a
 * few at once are fine, a burst of them would crowd out the requests that write. So at
 * most {@code sample.reports.permits-per-plan} (2) of a plan run at once, across every
 * instance, and another is turned away at once rather than queued ({@link WaitMode#TRY}).
 * The sample's data is small, so a report is quick; {@code sample.reports.work-time}
 * (none by default) makes each one take that long in the database, as a report on a large
 * plan would, so that the limit turns reports away under load (the chaos run sets it).
 */
@Service
public class PlanReportService {

	private final JdbcTemplate jdbc;

	private final Duration workTime;

	PlanReportService(JdbcTemplate jdbc, @Value("${sample.reports.work-time:0s}") Duration workTime) {
		this.jdbc = jdbc;
		this.workTime = workTime;
	}

	/**
	 * Report on a plan.
	 * @param plan the plan
	 * @return its users' requests, counted by status
	 * @throws io.github.advisorylock.LockBusyException if as many reports of the plan run
	 * already as the limit allows
	 */
	@Transactional(readOnly = true)
	@AdvisoryLocked(namespace = "plan_report", key = "#plan.id()", permitsString = "${sample.reports.permits-per-plan}",
			waitMode = WaitMode.TRY)
	public PlanReport report(Plan plan) {
		if (!this.workTime.isZero()) {
			this.jdbc.queryForObject("SELECT 1 FROM pg_sleep(?)", Integer.class, this.workTime.toMillis() / 1000.0);
		}
		return this.jdbc.queryForObject("""
				SELECT count(DISTINCT u.id) AS users,
				       count(r.id) FILTER (WHERE r.status = 'pending') AS pending,
				       count(r.id) FILTER (WHERE r.status = 'completed') AS completed,
				       count(r.id) FILTER (WHERE r.status = 'cancelled') AS cancelled,
				       count(r.id) FILTER (WHERE r.status = 'expired') AS expired
				FROM users u LEFT JOIN setup_requests r ON r.user_id = u.id
				WHERE u.plan = ?
				""", (row, number) -> new PlanReport(plan, row.getLong("users"), row.getLong("pending"),
				row.getLong("completed"), row.getLong("cancelled"), row.getLong("expired")), plan.id());
	}

}
