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

import io.github.advisorylock.sample.SampleDatabaseTests;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The race demo's variants against real PostgreSQL: the broken ones really break the
 * rule, the others keep it, each in its own way. The article's failure reproductions use
 * a pause between check and insert; so does the demo (its think time), so that the race
 * window is as wide as under real load.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE,
		properties = { "race-demo.attempts=10", "race-demo.think-time=100ms" })
class RaceDemoTests extends SampleDatabaseTests {

	private static final int ATTEMPTS = 10;

	@Autowired
	private RaceDemo demo;

	@Test
	void plainCheckThenInsertLeavesSeveralPendingRows() {
		RaceResult result = this.demo.run(RaceVariant.PLAIN);
		assertThat(result.pendingRows()).isGreaterThan(1).isEqualTo(result.successes());
		assertThat(result.ruleHeld()).isFalse();
	}

	@Test
	void forUpdateCheckThenInsertLeavesSeveralPendingRows() {
		RaceResult result = this.demo.run(RaceVariant.FOR_UPDATE);
		assertThat(result.pendingRows()).isGreaterThan(1).isEqualTo(result.successes());
		assertThat(result.ruleHeld()).isFalse();
	}

	@Test
	void thePartialUniqueIndexLeavesOneRowAndRefusesTheRestWithUniqueViolations() {
		RaceResult result = this.demo.run(RaceVariant.UNIQUE_INDEX);
		assertThat(result.successes()).isOne();
		assertThat(result.pendingRows()).isOne();
		assertThat(result.errors()).containsOnlyKeys("unique violation");
		assertThat(result.rejections() + result.errorCount()).isEqualTo(ATTEMPTS - 1);
	}

	@Test
	void theAdvisoryLockLeavesOneRowAndRejectsTheRestCleanly() {
		RaceResult result = this.demo.run(RaceVariant.ADVISORY_LOCK);
		assertThat(result.successes()).isOne();
		assertThat(result.rejections()).isEqualTo(ATTEMPTS - 1);
		assertThat(result.errors()).isEmpty();
		assertThat(result.pendingRows()).isOne();
	}

	@Test
	void serializableLeavesOneRowAndFailsTheRestWithSerializationFailures() {
		RaceResult result = this.demo.run(RaceVariant.SERIALIZABLE);
		assertThat(result.successes()).isOne();
		assertThat(result.pendingRows()).isOne();
		assertThat(result.errors()).containsOnlyKeys("serialization failure");
		assertThat(result.rejections() + result.errorCount()).isEqualTo(ATTEMPTS - 1);
	}

	@Test
	void theTableShowsEveryVariantAndWhetherTheRuleHeld() {
		String table = RaceDemo.table(this.demo.runAll());
		assertThat(table.lines()).hasSize(1 + RaceVariant.values().length);
		assertThat(table.lines().filter((line) -> line.startsWith("plain") || line.startsWith("FOR UPDATE")))
			.allSatisfy((line) -> assertThat(line).endsWith("BROKEN"));
		assertThat(table.lines().skip(3)).allSatisfy((line) -> assertThat(line).endsWith("held"));
	}

}
