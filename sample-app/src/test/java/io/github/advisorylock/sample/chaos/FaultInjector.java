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
package io.github.advisorylock.sample.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.sample.SampleInstance;
import io.github.advisorylock.sample.jobs.StaleRequestExpiry;
import io.github.advisorylock.testsupport.LockHolder;
import io.github.advisorylock.testsupport.PostgresPair;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Injects one fault at a time, at random (seeded) moments, each only after the system has
 * recovered from the previous one: every instance answered a request that reads the
 * database. The kinds come in rounds, each a seeded shuffle of all of them, so that every
 * kind gets its share. Each fault is recorded with its window.
 *
 * @author advisory-lock authors
 */
final class FaultInjector {

	/**
	 * The bound on any one recovery (a JVM start on two loaded cores included): past it
	 * the run stops injecting.
	 */
	static final Duration RECOVERY_BOUND = Duration.ofMinutes(2);

	/** The shortest random pause between one fault's recovery and the next fault. */
	static final int PAUSE_MIN_MILLIS = 100;

	/**
	 * How much longer than the shortest a pause may be: short, so that a 10-minute run
	 * gets many faults.
	 */
	static final int PAUSE_SPREAD_MILLIS = 400;

	/**
	 * The bound on waiting for a fact that a fault needs (a job run to freeze, a busy
	 * answer).
	 */
	private static final Duration FACT_BOUND = Duration.ofSeconds(60);

	/** Every instance: a fault that may touch any of them. */
	private static final Set<Integer> ALL = IntStream.range(0, ChaosCluster.INSTANCES)
		.boxed()
		.collect(Collectors.toUnmodifiableSet());

	private final ChaosCluster cluster;

	private final LoadGenerator load;

	private final ClientLog log;

	/**
	 * A session of an instance's pool in the middle of a batch of the fenced job: the
	 * batch's rows inserted, its transaction waiting to commit. Under the fence that
	 * session holds the fence lock; the batch is found by its statement rather than by
	 * the fence, so that a fault still finds it with the fence taken away (as the scratch
	 * check in docs/reliability.md did). Its {@code application_name} names the instance;
	 * {@code %s} is a further condition.
	 */
	private static final String BATCH_IN_FLIGHT = "SELECT application_name FROM pg_stat_activity "
			+ "WHERE state = 'idle in transaction' AND query LIKE 'INSERT INTO fenced_batch_rows%%' "
			+ "AND application_name LIKE 'chaos-instance-%%' %s LIMIT 1";

	/**
	 * How often a freeze of the fenced job's holder is tried before it is taken where it
	 * landed: the signal may come after the transaction's commit.
	 */
	private static final int FREEZE_ATTEMPTS = 5;

	/**
	 * How many freezes of the fenced job's holder caught it inside a fenced transaction.
	 */
	private int frozenInFencedTransaction;

	private final Random random;

	private final JdbcClient jdbc;

	private final List<FaultWindow> windows = new CopyOnWriteArrayList<>();

	/**
	 * What a fault could not do that it should have: no takeover after a freeze, no
	 * recovery.
	 */
	private final List<String> failures = new CopyOnWriteArrayList<>();

	private final List<FaultKind> round = new ArrayList<>();

	/**
	 * After each failover, the time from the promotion to the first run of the job that
	 * started after it, on the new primary.
	 */
	private final List<Long> jobAgainAfterFailover = new CopyOnWriteArrayList<>();

	/** The moment of each failover, in the database's clock. */
	private final List<OffsetDateTime> failovers = new CopyOnWriteArrayList<>();

	FaultInjector(ChaosCluster cluster, LoadGenerator load, ClientLog log, long seed) {
		this.cluster = cluster;
		this.load = load;
		this.log = log;
		this.random = new Random(seed);
		this.jdbc = JdbcClient.create(cluster.observer());
	}

	/**
	 * Inject faults until a time, then return once the last one has recovered.
	 * @param untilMillis the time, in the log's clock, after which no fault starts
	 * @throws IOException if an instance cannot be started again
	 */
	void run(long untilMillis) throws IOException {
		while (true) {
			// A random pause between faults: the one wait here that is not a fact.
			long pause = PAUSE_MIN_MILLIS + this.random.nextInt(PAUSE_SPREAD_MILLIS);
			LockSupport.parkNanos(Duration.ofMillis(pause).toNanos());
			if (this.log.now() >= untilMillis) {
				return;
			}
			FaultKind kind = next();
			long start = this.log.now();
			Injected injected = inject(kind);
			long recovered = awaitRecovered();
			if (injected.failoverAt() != null) {
				awaitJobAfter(injected.failoverAt());
			}
			FaultWindow window = new FaultWindow(kind, injected.detail(), injected.instances(), start, recovered);
			this.windows.add(window);
			// Each fault with its window in the build log too, as it happens.
			System.out.println("== fault " + this.windows.size() + ": " + kind + " (" + injected.detail() + ") at "
					+ start + " ms, " + (window.recovered() ? "recovered after " + window.recoveryMillis() + " ms"
							: "no recovery within " + RECOVERY_BOUND));
			if (recovered < 0) {
				this.failures.add("The system did not answer again within " + RECOVERY_BOUND + " after " + kind + " ("
						+ injected.detail() + ")");
				return;
			}
		}
	}

	/**
	 * Return the faults injected.
	 * @return their windows, in order
	 */
	List<FaultWindow> windows() {
		return List.copyOf(this.windows);
	}

	/**
	 * Return, for each failover, the time from the promotion to the start of the first
	 * run of the job after it.
	 * @return milliseconds, in the database's clock, in the order of the failovers
	 */
	List<Long> jobAgainAfterFailover() {
		return List.copyOf(this.jobAgainAfterFailover);
	}

	/**
	 * Return the moment of each failover: the new primary promoted and the old one down.
	 * @return in the database's clock, in order
	 */
	List<OffsetDateTime> failovers() {
		return List.copyOf(this.failovers);
	}

	/**
	 * Return what the faults could not do that they should have.
	 * @return the failures, each a sentence
	 */
	List<String> failures() {
		return List.copyOf(this.failures);
	}

	private FaultKind next() {
		if (this.round.isEmpty()) {
			this.round.addAll(List.of(FaultKind.values()));
			Collections.shuffle(this.round, this.random);
		}
		return this.round.remove(0);
	}

	private Injected inject(FaultKind kind) throws IOException {
		return switch (kind) {
			case KILL_INSTANCE -> killInstance();
			case FREEZE_JOB_RUNNER -> freezeJobRunner();
			case FREEZE_FENCED_WRITER -> freezeFencedWriter();
			case CUT_NETWORK -> cutNetwork();
			case TERMINATE_SESSIONS -> terminateSessions();
			case RESTART_POSTGRES -> {
				this.cluster.restartServer();
				yield new Injected("stop mode " + ChaosCluster.STOP_MODE, ALL);
			}
			case FAILOVER -> {
				int from = this.cluster.primaryPort();
				PostgresPair.Failover failover = this.cluster.failover();
				this.failovers.add(failover.at());
				yield new Injected(
						"port " + from + " to " + this.cluster.primaryPort() + ", "
								+ this.cluster.replication().description() + " replication; promoted in "
								+ failover.promoteMillis() + " ms, two primaries for " + failover.twoPrimariesMillis()
								+ " ms, a new standby streaming after " + failover.totalMillis() + " ms",
						ALL, failover.at());
			}
			case RESTART_PGBOUNCER -> {
				this.cluster.restartPgBouncer();
				yield new Injected("instance-" + ChaosCluster.THROUGH_PGBOUNCER + "'s PgBouncer",
						Set.of(ChaosCluster.THROUGH_PGBOUNCER));
			}
			// Requests for the user wait and answer busy: a 409, never a failure.
			case HOLD_HOT_LOCK -> new Injected(holdHotLock(), Set.of());
		};
	}

	private Injected killInstance() throws IOException {
		int index = this.random.nextInt(ChaosCluster.INSTANCES);
		this.cluster.killAndRestart(index);
		return new Injected("instance-" + index, Set.of(index));
	}

	/**
	 * Freeze the instance that runs the job now, until another instance has started a
	 * run: the frozen one's lock session, silent, was ended by PostgreSQL after three
	 * heartbeats. Then let it go on; it learns of its loss.
	 */
	private Injected freezeJobRunner() {
		Optional<String> running = await(() -> this.jdbc
			.sql("SELECT instance FROM job_runs WHERE job = ? AND finished_at IS NULL "
					+ "AND started_at > clock_timestamp() - ?::interval ORDER BY started_at DESC LIMIT 1")
			.params(StaleRequestExpiry.JOB, ChaosCluster.JOB_WORK_TIME.dividedBy(2).toString())
			.query(String.class)
			.optional());
		if (running.isEmpty()) {
			this.failures.add("No run of the job in progress was seen within " + FACT_BOUND + " to freeze");
			return new Injected("no run in progress", Set.of());
		}
		int index = ChaosCluster.index(running.get());
		SampleInstance frozen = this.cluster.instance(index);
		OffsetDateTime frozenAt = this.jdbc.sql("SELECT clock_timestamp()").query(OffsetDateTime.class).single();
		frozen.suspend();
		try {
			Optional<String> next = await(() -> this.jdbc
				.sql("SELECT instance FROM job_runs WHERE job = ? AND started_at > ? AND instance <> ? LIMIT 1")
				.params(StaleRequestExpiry.JOB, frozenAt, running.get())
				.query(String.class)
				.optional());
			if (next.isEmpty()) {
				this.failures.add("No other instance ran the job within " + FACT_BOUND + " while " + running.get()
						+ ", which ran it, was frozen");
				return new Injected(running.get() + ", no takeover", Set.of(index));
			}
			return new Injected(running.get() + ", taken over by " + next.get(), Set.of(index));
		}
		finally {
			frozen.resume();
		}
	}

	/**
	 * Freeze the fenced job's holder in the middle of a fenced transaction (a batch
	 * written, waiting to commit: idle in transaction, holding the fence), until another
	 * instance has committed a batch of a newer run: PostgreSQL ended the frozen
	 * transaction and the lock session after three heartbeats. Then let it go on: its
	 * commit must fail.
	 */
	private Injected freezeFencedWriter() {
		for (int attempt = 1;; attempt++) {
			Optional<String> holder = await(
					() -> this.jdbc.sql(BATCH_IN_FLIGHT.formatted("")).query(String.class).optional());
			if (holder.isEmpty()) {
				this.failures
					.add("No batch of the fenced job in progress was seen within " + FACT_BOUND + " to freeze");
				return new Injected("no batch in progress", Set.of());
			}
			String name = holder.get().substring("chaos-".length());
			int index = ChaosCluster.index(name);
			SampleInstance frozen = this.cluster.instance(index);
			frozen.suspend();
			try {
				// Still in it once stopped? A stopped process cannot commit any more. If
				// not (the signal came after its commit), let it go at once and try
				// again.
				boolean inTransaction = this.jdbc
					.sql(BATCH_IN_FLIGHT.formatted("AND application_name = '" + holder.get() + "'"))
					.query(String.class)
					.optional()
					.isPresent();
				if (inTransaction || attempt == FREEZE_ATTEMPTS) {
					if (inTransaction) {
						this.frozenInFencedTransaction++;
					}
					String where = inTransaction ? "in a fenced transaction"
							: "not caught in a fenced transaction in " + attempt + " attempts";
					return new Injected(name + " " + where + ", " + awaitNewerBatch(name), Set.of(index));
				}
			}
			finally {
				frozen.resume();
			}
		}
	}

	/**
	 * Cut the fenced job's holder off from the database (its relays forward nothing),
	 * until another instance has committed a batch of a newer run; then restore it.
	 */
	private Injected cutNetwork() {
		Optional<String> holder = await(
				() -> this.jdbc.sql(BATCH_IN_FLIGHT.formatted("")).query(String.class).optional());
		if (holder.isEmpty()) {
			this.failures.add("No batch of the fenced job in progress was seen within " + FACT_BOUND + " to cut off");
			return new Injected("no batch in progress", Set.of());
		}
		String name = holder.get().substring("chaos-".length());
		int index = ChaosCluster.index(name);
		this.cluster.cutNetwork(index);
		try {
			return new Injected(name + ", " + awaitNewerBatch(name), Set.of(index));
		}
		finally {
			this.cluster.restoreNetwork(index);
		}
	}

	/**
	 * Wait until an instance other than the given one has committed a batch of a run
	 * newer than the given one's last; return what to report.
	 */
	private String awaitNewerBatch(String instance) {
		long run = this.jdbc.sql("SELECT coalesce(max(id), 0) FROM fenced_runs WHERE instance = ?")
			.param(instance)
			.query(Long.class)
			.single();
		Optional<String> next = await(
				() -> this.jdbc.sql("SELECT instance FROM fenced_batch_rows WHERE run > ? AND instance <> ? LIMIT 1")
					.params(run, instance)
					.query(String.class)
					.optional());
		if (next.isEmpty()) {
			this.failures.add("No other instance committed a fenced batch within " + FACT_BOUND + " after run " + run
					+ " of " + instance);
			return "run " + run + ", no takeover";
		}
		return "run " + run + ", taken over by " + next.get();
	}

	/**
	 * Return how many freezes of the fenced job's holder caught it inside a fenced
	 * transaction.
	 * @return the count
	 */
	int frozenInFencedTransaction() {
		return this.frozenInFencedTransaction;
	}

	private Injected terminateSessions() {
		List<Session> sessions = new ArrayList<>(this.jdbc
			.sql("SELECT pid, application_name FROM pg_stat_activity WHERE backend_type = 'client backend' "
					+ "AND pid <> pg_backend_pid() AND application_name <> ? ORDER BY pid")
			.param(ChaosCluster.OBSERVER)
			.query(Session.class)
			.list());
		Collections.shuffle(sessions, this.random);
		List<Session> victims = sessions.subList(0, Math.min(sessions.size(), 1 + this.random.nextInt(3)));
		for (Session victim : victims) {
			this.jdbc.sql("SELECT pg_terminate_backend(?)").param(victim.pid()).query(Boolean.class).single();
		}
		Set<Integer> instances = new HashSet<>();
		for (Session victim : victims) {
			// A pool session names its instance; another (a job's lock session names
			// pid@host) may be any one's.
			instances.addAll(victim.applicationName().startsWith("chaos-instance-")
					? Set.of(ChaosCluster.index(victim.applicationName().substring("chaos-".length()))) : ALL);
		}
		return new Injected(victims.stream().map(Session::toString).toList().toString(), instances);
	}

	/**
	 * Hold a hot user's setup-request lock from a session of the run's own until a
	 * request for that user has answered busy (it waited the whole lock timeout), then
	 * roll back.
	 */
	private String holdHotLock() {
		UUID user = this.load.hotUser(this.random);
		long since = this.log.now();
		LockHolder holder = LockHolder.exclusive(this.cluster.observer(), AdvisoryLockKeys.of("setup_request", user));
		try {
			if (await(() -> Optional.of(true).filter((ignored) -> this.log.busySince(user, since))).isEmpty()) {
				this.failures.add("No request for " + user + " answered busy within " + FACT_BOUND
						+ " while its lock was held from outside");
				return "user " + user + ", no busy answer";
			}
			return "user " + user;
		}
		finally {
			holder.rollback();
		}
	}

	/**
	 * Wait for the first run of the job that started after a failover, on the new
	 * primary: the invocation-scoped lock ended with the old primary, and another
	 * instance, or the same, takes it again there.
	 */
	private void awaitJobAfter(OffsetDateTime failoverAt) {
		Optional<OffsetDateTime> next = await(() -> this.jdbc
			.sql("SELECT started_at FROM job_runs WHERE job = ? AND started_at > ? ORDER BY started_at LIMIT 1")
			.params(StaleRequestExpiry.JOB, failoverAt)
			.query(OffsetDateTime.class)
			.optional());
		if (next.isEmpty()) {
			this.failures
				.add("No run of the job started within " + FACT_BOUND + " after the failover at " + failoverAt);
			return;
		}
		this.jobAgainAfterFailover.add(Duration.between(failoverAt, next.get()).toMillis());
	}

	/**
	 * Wait until every instance answers a request that reads the database.
	 * @return when, in the log's clock, or -1 if not within {@link #RECOVERY_BOUND}
	 */
	private long awaitRecovered() {
		UUID user = this.load.users().get(LoadGenerator.USERS - 1);
		long deadline = System.nanoTime() + RECOVERY_BOUND.toNanos();
		boolean[] answered = new boolean[ChaosCluster.INSTANCES];
		while (System.nanoTime() < deadline) {
			boolean all = true;
			for (int i = 0; i < ChaosCluster.INSTANCES; i++) {
				if (!answered[i]) {
					try {
						answered[i] = this.cluster.http(i).get("/users/" + user).statusCode() == 200;
					}
					catch (UncheckedIOException notYet) {
						// Its port is closed, or a connection it had was reset: not
						// recovered yet.
					}
					all &= answered[i];
				}
			}
			if (all) {
				return this.log.now();
			}
			LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
		}
		return -1;
	}

	private static <T> Optional<T> await(Supplier<Optional<T>> fact) {
		return Facts.await(FACT_BOUND, fact);
	}

	/**
	 * What a fault did, and the instances whose requests it may make fail.
	 *
	 * @param detail what was done
	 * @param instances the instances touched
	 * @param failoverAt for a failover, the moment of the promotion in the database's
	 * clock
	 */
	private record Injected(String detail, Set<Integer> instances, @Nullable OffsetDateTime failoverAt) {

		Injected(String detail, Set<Integer> instances) {
			this(detail, instances, null);
		}

	}

	/**
	 * A client session of the server.
	 *
	 * @param pid its backend's process id
	 * @param applicationName whose it is
	 */
	record Session(int pid, String applicationName) {

		@Override
		public String toString() {
			return this.pid + " (" + this.applicationName + ")";
		}

	}

}
