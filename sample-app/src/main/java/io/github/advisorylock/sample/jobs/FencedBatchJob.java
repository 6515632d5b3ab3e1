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
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.WaitMode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.StringUtils;

/**
 * A scheduled job that writes batches under fenced writes: one instance at a time runs
 * it, and once that instance has lost the job's lock, none of its transactions can write
 * any more, even if it is paused or cut off and wakes after the next instance has begun.
 * Off unless {@code sample.jobs.fenced-batches.enabled} is {@code true}.
 *
 * <p>
 * The job's lock is invocation-scoped and skips when held, as in
 * {@link StaleRequestExpiry}. Each of its transactions takes the same key again,
 * transaction-scoped, and that makes it a fenced write: the transaction takes the key's
 * fence lock and checks that the job's lock session still holds the key, before it
 * writes. If not, {@link io.github.advisorylock.LockLostException} ends the run there,
 * and no later batch is written. A batch already past its check when the lock is lost
 * commits before the next holder's first fenced write, or not at all.
 *
 * <p>
 * A run is a row of {@code fenced_runs}, inserted by the run's first fenced transaction:
 * fenced transactions of one key run one at a time, so run ids increase in the order the
 * lock passed from instance to instance. Every row of a batch carries its run and the
 * instance that wrote it ({@code fenced_batch_rows}).
 *
 * <p>
 * A run also writes each batch's record to an archive outside the lock's database, which
 * no fence reaches ({@code sample.jobs.fenced-batches.archive-url}): it carries the run's
 * fencing token, which the run records in {@code fenced_runs}, and the archive refuses it
 * once it has accepted a higher one. A refusal rolls the batch back and ends the run: a
 * newer holder runs the job.
 */
@Component
@ConditionalOnProperty(prefix = "sample.jobs.fenced-batches", name = "enabled", havingValue = "true")
public class FencedBatchJob {

	/**
	 * The job's name: its lock key in the namespace {@code job}.
	 */
	public static final String JOB = "write-fenced-batches";

	private static final Log logger = LogFactory.getLog(FencedBatchJob.class);

	private final JdbcClient jdbc;

	private final AdvisoryLockOperations locks;

	private final TransactionTemplate transactions;

	private final FencedBatchJobProperties properties;

	private final String instance;

	private final @Nullable FencedArchive archive;

	FencedBatchJob(JdbcClient jdbc, AdvisoryLockOperations locks, TransactionTemplate transactions,
			FencedBatchJobProperties properties, @Value("${sample.instance:}") String instance) {
		this.jdbc = jdbc;
		this.locks = locks;
		this.transactions = transactions;
		this.properties = properties;
		this.instance = StringUtils.hasText(instance) ? instance : ManagementFactory.getRuntimeMXBean().getName();
		this.archive = StringUtils.hasText(properties.archiveUrl()) ? FencedArchive.connect(properties.archiveUrl())
				: null;
	}

	/**
	 * Write this run's batches, each in a fenced transaction of its own, unless another
	 * instance runs the job now. Not {@code @Transactional}: the lock must be held before
	 * the run's transactions begin, and each batch commits before the next.
	 * @throws io.github.advisorylock.LockLostException if the lock was lost: the batch
	 * that found it lost wrote nothing, and no later one was tried
	 */
	@Scheduled(
			fixedDelayString = "${sample.jobs.fenced-batches.period:" + FencedBatchJobProperties.DEFAULT_PERIOD + "}")
	@AdvisoryLocked(namespace = "job", key = "'" + JOB + "'", scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP)
	public void writeBatches() {
		long token = this.locks.currentHandle().fencingToken();
		long run = fenced(() -> this.jdbc.sql("INSERT INTO fenced_runs (instance, token) VALUES (?, ?) RETURNING id")
			.params(this.instance, token)
			.query(Long.class)
			.single());
		for (int batch = 1; batch <= this.properties.batches(); batch++) {
			int number = batch;
			try {
				fenced(() -> writeBatch(run, number, token));
			}
			catch (RefusedByArchive ex) {
				logger.warn(ex.getMessage());
				return;
			}
			// Committed now: the chaos run's checker reads this line.
			logger.info("Committed fenced batch " + batch + " of run " + run + " on " + this.instance);
			if (Thread.currentThread().isInterrupted()) {
				// The application is shutting down: the run stays unfinished.
				return;
			}
		}
		fenced(() -> this.jdbc.sql("UPDATE fenced_runs SET finished_at = clock_timestamp() WHERE id = ?")
			.param(run)
			.update());
	}

	/**
	 * Write a batch's rows, then its record to the archive with the run's token, last
	 * before the commit: a refusal rolls the batch back, so that the database and the
	 * archive agree on the batches written. A holder frozen or cut off after the insert
	 * wakes here.
	 */
	private int writeBatch(long run, int batch, long token) {
		int written = this.jdbc
			.sql("INSERT INTO fenced_batch_rows (run, batch, item, instance) "
					+ "SELECT ?, ?, item, ? FROM generate_series(1, ?) AS item")
			.params(run, batch, this.instance, this.properties.batchSize())
			.update();
		pause(this.properties.pause());
		if (this.archive != null && !this.archive.put(JOB, token, run, batch, this.instance)) {
			throw new RefusedByArchive("The archive refused batch " + batch + " of run " + run + " (fencing token "
					+ token + "): a newer holder of the job's lock has written there, so this run stops");
		}
		return written;
	}

	/**
	 * Run work in a transaction of its own that takes the job's key transaction-scoped:
	 * inside {@link #writeBatches()}, which holds the key, that is a fenced write.
	 */
	private <T> T fenced(Supplier<T> work) {
		return Objects.requireNonNull(this.transactions.execute((status) -> {
			this.locks.lock("job", JOB);
			return work.get();
		}));
	}

	private static void pause(Duration pause) {
		if (pause.isZero()) {
			return;
		}
		try {
			Thread.sleep(pause.toMillis());
		}
		catch (InterruptedException ex) {
			// The application is shutting down: commit this batch, then stop the run.
			Thread.currentThread().interrupt();
		}
	}

	/** A write the archive refused: a newer holder's token is there. */
	private static final class RefusedByArchive extends RuntimeException {

		RefusedByArchive(String message) {
			super(message);
		}

	}

}
