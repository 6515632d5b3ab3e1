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

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * Runs the race demo and prints its table when the application starts with the
 * {@code race-demo} profile, which also turns the web server off, so that the application
 * ends after the table.
 */
@Component
@Profile("race-demo")
class RaceDemoRunner implements ApplicationRunner {

	private final RaceDemo demo;

	private final RaceDemoProperties properties;

	RaceDemoRunner(RaceDemo demo, RaceDemoProperties properties) {
		this.demo = demo;
		this.properties = properties;
	}

	@Override
	public void run(ApplicationArguments args) {
		System.out.printf(
				"%nRace demo: for each variant, %d concurrent attempts to create the one pending setup "
						+ "request a new user may have,%neach working %d ms between its check and its insert.%n%n",
				this.properties.attempts(), this.properties.thinkTime().toMillis());
		System.out.println(RaceDemo.table(this.demo.runAll()));
		System.out.println(
				"""
						The broken variants let every attempt pass the check. The partial unique index and SERIALIZABLE keep the
						rule with errors the caller must handle (SERIALIZABLE: by retrying the whole transaction). @AdvisoryLocked
						keeps it with clean rejections, and keeps rules no constraint can say ("at most 3 on the pro plan").
						""");
	}

}
