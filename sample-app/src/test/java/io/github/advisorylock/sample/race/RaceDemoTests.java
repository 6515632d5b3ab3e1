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

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.sample.SampleDatabaseTests;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The race demo's variants against real PostgreSQL: the broken ones really break the
 * rule, the others keep it, each in its own way. The article's failure reproductions use
 * a pause between check and insert; so does the demo (its think time), so that the race
 * window is as wide as under real load. Where a test needs the attempts to race, it holds
 * back their inserts with a lock on the table until every attempt has checked: on a
 * loaded machine the think time alone would leave that to the scheduler.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE,
		properties = { "race-demo.attempts=10", "race-demo.think-time=100ms" })
class RaceDemoTests extends SampleDatabaseTests {

	private static final int ATTEMPTS = 10;

	/**
	 * A thread of its own for a call that blocks: the common pool may have one thread.
	 */
	private static final Executor OWN_THREAD = (task) -> new Thread(task, "race-demo-test").start();

	@Autowired
	private RaceDemo demo;

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	private final JdbcClient jdbc = JdbcClient.create(TestDatabase.get().dataSource());

	@Test
	void plainCheckThenInsertLeavesSeveralPendingRows() throws Exception {
		RaceResult result = raced(RaceVariant.PLAIN);
		assertThat(result.pendingRows()).isGreaterThan(1).isEqualTo(result.successes());
		assertThat(result.ruleHeld()).isFalse();
	}

	@Test
	void forUpdateCheckThenInsertLeavesSeveralPendingRows() throws Exception {
		RaceResult result = raced(RaceVariant.FOR_UPDATE);
		assertThat(result.pendingRows()).isGreaterThan(1).isEqualTo(result.successes());
		assertThat(result.ruleHeld()).isFalse();
	}

	@Test
	void thePartialUniqueIndexLeavesOneRowAndRefusesTheRestWithUniqueViolations() throws Exception {
		RaceResult result = raced(RaceVariant.UNIQUE_INDEX);
		assertThat(result.successes()).isOne();
		assertThat(result.pendingRows()).isOne();
		assertThat(result.errors()).containsOnlyKeys("unique violation");
		assertThat(result.rejections() + result.errorCount()).isEqualTo(ATTEMPTS - 1);
	}

	@Test
	void theAdvisoryLockLeavesOneRowAndRejectsTheRestCleanly() {
		// Not held back: the lock lets one attempt at a time check, whatever the timing.
		RaceResult result = this.demo.run(RaceVariant.ADVISORY_LOCK);
		assertThat(result.successes()).isOne();
		assertThat(result.rejections()).isEqualTo(ATTEMPTS - 1);
		assertThat(result.errors()).isEmpty();
		assertThat(result.pendingRows()).isOne();
	}

	@Test
	void serializableLeavesOneRowAndFailsTheRestWithSerializationFailures() throws Exception {
		RaceResult result = raced(RaceVariant.SERIALIZABLE);
		assertThat(result.successes()).isOne();
		assertThat(result.pendingRows()).isOne();
		assertThat(result.errors()).containsOnlyKeys("serialization failure");
		assertThat(result.rejections() + result.errorCount()).isEqualTo(ATTEMPTS - 1);
	}

	@Test
	void theTableShowsEveryVariantAndWhetherTheRuleHeld() throws Exception {
		// The two broken variants run first, one after the other, on the same table. A
		// second lock, queued behind the first variant's inserts, is granted once they
		// commit, so it holds back the second variant's inserts too.
		CompletableFuture<List<RaceResult>> results;
		try (LockHolder plain = holdInserts(RaceVariant.PLAIN);
				LockHolder forUpdate = LockHolder.exclusive(TestDatabase.get().dataSource())) {
			results = CompletableFuture.supplyAsync(this.demo::runAll, OWN_THREAD);
			awaitInsertsWaiting(RaceVariant.PLAIN, ATTEMPTS);
			String lockForUpdate = lockTable(RaceVariant.FOR_UPDATE);
			CompletableFuture<Void> queued = CompletableFuture.runAsync(() -> forUpdate.update(lockForUpdate),
					OWN_THREAD);
			awaitInsertsWaiting(RaceVariant.PLAIN, ATTEMPTS + 1);
			plain.commit();
			queued.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
			awaitInsertsWaiting(RaceVariant.FOR_UPDATE, ATTEMPTS);
			forUpdate.commit();
		}
		String table = RaceDemo.table(results.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
		assertThat(table.lines()).hasSize(1 + RaceVariant.values().length);
		assertThat(table.lines().filter((line) -> line.startsWith("plain") || line.startsWith("FOR UPDATE")))
			.allSatisfy((line) -> assertThat(line).endsWith("BROKEN"));
		assertThat(table.lines().skip(3)).allSatisfy((line) -> assertThat(line).endsWith("held"));
	}

	/**
	 * Run a variant whose attempts race: their inserts are held back until every one has
	 * checked (none can see another's row before), then let go together.
	 */
	private RaceResult raced(RaceVariant variant) throws Exception {
		try (LockHolder inserts = holdInserts(variant)) {
			CompletableFuture<RaceResult> result = CompletableFuture.supplyAsync(() -> this.demo.run(variant),
					OWN_THREAD);
			awaitInsertsWaiting(variant, ATTEMPTS);
			inserts.commit();
			return result.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		}
	}

	/**
	 * Lock a variant's table in {@code SHARE} mode, in a transaction of the test's own:
	 * the attempts' checks pass it, their inserts wait for it.
	 */
	private LockHolder holdInserts(RaceVariant variant) {
		// The demo creates its tables at each run; the lock needs them now.
		new ResourceDatabasePopulator(new ClassPathResource("race-demo-schema.sql"))
			.execute(TestDatabase.get().dataSource());
		LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource());
		holder.update(lockTable(variant));
		return holder;
	}

	private static String lockTable(RaceVariant variant) {
		return "LOCK TABLE " + variant.table() + " IN SHARE MODE";
	}

	/**
	 * Wait until the given number of sessions wait for a lock on a variant's table.
	 */
	private void awaitInsertsWaiting(RaceVariant variant, int waiting) {
		this.pgLocks.await(waiting + " session(s) waiting for " + variant.table(),
				(locks) -> this.jdbc
					.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'relation' AND relation = ?::regclass "
							+ "AND NOT granted")
					.param(variant.table())
					.query(Integer.class)
					.single() >= waiting);
	}

}
