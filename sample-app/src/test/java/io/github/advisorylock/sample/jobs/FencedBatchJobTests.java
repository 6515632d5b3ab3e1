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

import java.lang.management.ManagementFactory;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.sample.SampleDatabaseTests;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.PgLocks.AdvisoryLock;
import io.github.advisorylock.testsupport.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fenced-batches job called directly in one application, with its schedule off: its
 * batches commit under the job's lock, each in a fenced transaction, and once the lock's
 * session is gone the next batch fails before it writes. The heartbeat is an hour long,
 * so that only the fence can notice the loss while a test runs.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE,
		properties = { "sample.jobs.fenced-batches.enabled=true", "sample.jobs.fenced-batches.batches=3",
				"sample.jobs.fenced-batches.batch-size=2", "sample.jobs.fenced-batches.pause=1s",
				"advisory-lock.invocation.heartbeat=1h" })
class FencedBatchJobTests extends SampleDatabaseTests {

	private static final long JOB_KEY = AdvisoryLockKeys.of("job", FencedBatchJob.JOB);

	/** The archive outside the lock's database: another database on the test server. */
	private static final String ARCHIVE_URL = withCredentials(TestDatabase.get().createDatabase("fenced_archive"));

	private final JdbcClient archive = JdbcClient.create(new DriverManagerDataSource(ARCHIVE_URL));

	@DynamicPropertySource
	static void archive(DynamicPropertyRegistry registry) {
		registry.add("sample.jobs.fenced-batches.archive-url", () -> ARCHIVE_URL);
	}

	private static String withCredentials(String url) {
		return url + (url.contains("?") ? "&" : "?") + "user=" + TestDatabase.get().username() + "&password="
				+ TestDatabase.get().password();
	}

	@Autowired
	private FencedBatchJob job;

	@Autowired
	private JdbcClient jdbc;

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@BeforeEach
	void noRunsYet() {
		this.jdbc.sql("DELETE FROM fenced_batch_rows").update();
		this.jdbc.sql("DELETE FROM fenced_runs").update();
		this.archive.sql("TRUNCATE archive_highest, archive_writes, archive_refused").update();
	}

	@Test
	void eachRunCarriesAGreaterFencingTokenToTheArchiveWhichRefusesALowerOne() {
		this.job.writeBatches();
		this.job.writeBatches();
		List<Long> tokens = this.jdbc.sql("SELECT token FROM fenced_runs ORDER BY id").query(Long.class).list();
		assertThat(tokens).hasSize(2);
		assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
		assertThat(this.archive.sql("SELECT token FROM archive_writes ORDER BY id").query(Long.class).list())
			.containsExactly(tokens.get(0), tokens.get(0), tokens.get(0), tokens.get(1), tokens.get(1), tokens.get(1));
		// The first run's holder, had it lost its lock and woken after the second run
		// wrote, would be refused.
		FencedArchive archive = FencedArchive.connect(ARCHIVE_URL);
		assertThat(archive.put(FencedBatchJob.JOB, tokens.get(0), 1, 4, "stale")).isFalse();
		assertThat(this.archive.sql("SELECT token, highest FROM archive_refused").query().listOfRows()).singleElement()
			.satisfies((refused) -> assertThat(refused).containsEntry("token", tokens.get(0))
				.containsEntry("highest", tokens.get(1)));
	}

	@Test
	void eachBatchCommitsInAFencedTransactionUnderTheJobsLock() throws Exception {
		CompletableFuture<Void> run;
		// The first batch is held at its insert, so that it is seen holding the fence
		// whenever the test looks, not only during its pause.
		try (LockHolder batchRows = holdBatchRows()) {
			run = CompletableFuture.runAsync(this.job::writeBatches);
			this.pgLocks.await("the first batch waiting to insert", (locks) -> batchWaitsToInsert());
			// A batch holds the key's fence, on a connection of the pool, while the job's
			// own lock session holds the key.
			int holder = this.pgLocks.holderPid(JOB_KEY);
			List<AdvisoryLock> fences = this.pgLocks.fences();
			assertThat(fences).filteredOn((fence) -> fence.key() == JOB_KEY && fence.granted())
				.isNotEmpty()
				.allSatisfy((fence) -> assertThat(fence.pid()).isNotEqualTo(holder));
			batchRows.commit();
		}
		run.get(PgLocks.HANG_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		assertThat(runs()).singleElement().satisfies((only) -> assertThat(only.finishedAt()).isNotNull());
		long runId = runs().get(0).id();
		assertThat(batches()).containsExactly(new Batch(runId, 1, instance(), 2), new Batch(runId, 2, instance(), 2),
				new Batch(runId, 3, instance(), 2));
	}

	@Test
	void aBatchAfterTheLockSessionWasTerminatedFailsBeforeItWrites() {
		CompletableFuture<Void> run;
		// The first batch is held at its insert, past its check under the fence, until
		// the lock session is gone: the next batch cannot begin before, however long the
		// test takes.
		try (LockHolder batchRows = holdBatchRows()) {
			run = CompletableFuture.runAsync(this.job::writeBatches);
			this.pgLocks.await("the first batch waiting to insert, under the fence", (locks) -> batchWaitsToInsert());
			// Until its backend has exited, the session still holds its marker.
			this.pgLocks.terminateHolderOf(JOB_KEY);
			batchRows.commit();
		}
		assertThat(run).failsWithin(PgLocks.HANG_TIMEOUT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		// The batch in flight commits, being past its check; the next one writes nothing.
		assertThat(batches()).extracting(Batch::batch).containsExactly(1);
		assertThat(runs()).singleElement().satisfies((lost) -> assertThat(lost.finishedAt()).isNull());
	}

	/**
	 * Hold back the inserts of the batches: a transaction of the test's own locks
	 * {@code fenced_batch_rows} in {@code SHARE} mode, which an insert waits for.
	 */
	private LockHolder holdBatchRows() {
		LockHolder holder = LockHolder.exclusive(TestDatabase.get().dataSource());
		holder.update("LOCK TABLE fenced_batch_rows IN SHARE MODE");
		return holder;
	}

	/**
	 * Whether a session that holds the job's fence waits to insert into
	 * {@code fenced_batch_rows}: a batch, past its check, held back by the test.
	 */
	private boolean batchWaitsToInsert() {
		return this.jdbc
			.sql("SELECT count(*) FROM pg_locks l JOIN pg_locks f ON f.pid = l.pid "
					+ "WHERE l.locktype = 'relation' AND l.relation = 'fenced_batch_rows'::regclass AND NOT l.granted "
					+ "AND f.locktype = 'advisory' AND f.objsubid = 2 AND f.granted AND "
					+ PgLocks.KEY_EXPRESSION.replace("classid", "f.classid").replace("objid", "f.objid") + " = ?")
			.param(JOB_KEY)
			.query(Integer.class)
			.single() > 0;
	}

	private String instance() {
		return ManagementFactory.getRuntimeMXBean().getName();
	}

	private List<Run> runs() {
		return this.jdbc.sql("SELECT id, instance, finished_at FROM fenced_runs ORDER BY id").query(Run.class).list();
	}

	private List<Batch> batches() {
		return this.jdbc
			.sql("SELECT run, batch, min(instance) AS instance, count(*) AS rows FROM fenced_batch_rows "
					+ "GROUP BY run, batch ORDER BY run, batch")
			.query(Batch.class)
			.list();
	}

	/**
	 * A row of {@code fenced_runs}.
	 *
	 * @param id its id
	 * @param instance the instance that ran it
	 * @param finishedAt when it finished, or {@code null}
	 */
	record Run(long id, String instance, @Nullable OffsetDateTime finishedAt) {

	}

	/**
	 * A batch, from its rows.
	 *
	 * @param run its run
	 * @param batch its number in the run
	 * @param instance the instance that wrote it
	 * @param rows how many rows it wrote
	 */
	record Batch(long run, int batch, String instance, long rows) {

	}

}
