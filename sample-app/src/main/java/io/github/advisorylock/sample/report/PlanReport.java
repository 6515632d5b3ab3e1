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

import io.github.advisorylock.sample.setup.Plan;

/**
 * The setup requests of the users of one plan, counted by status.
 *
 * @param plan the plan
 * @param users its users
 * @param pending their pending requests
 * @param completed their completed requests
 * @param cancelled their cancelled requests
 * @param expired their expired requests
 */
public record PlanReport(Plan plan, long users, long pending, long completed, long cancelled, long expired) {

}
