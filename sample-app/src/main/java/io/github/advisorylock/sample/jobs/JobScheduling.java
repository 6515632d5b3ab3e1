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

package io.github.advisorylock.sample.jobs;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Turns on the schedules of the sample's jobs unless {@code sample.jobs.enabled} is
 * {@code false}.
 *
 * <p>
 * Only the schedules: the job beans stay, so that a test can call a job directly without
 * a scheduled run racing it. The in-process tests turn the schedules off, because a
 * cached test context would otherwise keep running jobs, and holding their locks, while
 * later tests run.
 */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
@ConditionalOnProperty(prefix = "sample.jobs", name = "enabled", havingValue = "true", matchIfMissing = true)
class JobScheduling {

}
