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

package io.github.advisorylock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What the startup check of one source of connections found: whether a second session is
 * refused a key that a first one holds. A server or a middlebox can accept every advisory
 * lock call and exclude nobody (a stub that answers yes, a proxy that sends each session
 * to another server); only this behaviour shows it, not a version string. Each stack runs
 * the two sessions; what they saw, and what it means for startup, is decided and worded
 * here (docs/poolers.md, "The startup check").
 *
 * @param outcome what the check found
 * @param source the source, as a message names it: {@code DataSource 'dataSource'}
 * @param detail what was seen, for the message
 * @param elapsed how long the check took
 * @author advisory-lock authors
 */
public record ExclusionProof(Outcome outcome, String source, String detail, Duration elapsed) {

	/**
	 * SQLSTATEs of a server that refuses the functions themselves: not supported
	 * ({@code 0A000}, Aurora DSQL), unknown ({@code 42883}), not allowed ({@code 42501},
	 * {@code EXECUTE} revoked).
	 */
	private static final Set<String> REFUSING_STATES = Set.of("0A000", "42883", "42501");

	/** The SQLSTATE class of a connection that failed or was cut. */
	private static final String CONNECTION_EXCEPTION = "08";

	private static final Log logger = LogFactory.getLog(ExclusionProof.class);

	/** The property that switches the check off. */
	private static final String SWITCH = "advisory-lock.startup-check.enabled";

	/** What the check found. */
	public enum Outcome {

		/** The second session was refused the key: locks exclude. */
		PROVEN,

		/**
		 * The second session was granted the key the first held: locks exclude nobody.
		 */
		NOT_EXCLUDED,

		/** The server refused the advisory lock functions themselves. */
		REFUSED,

		/**
		 * A session was given a standby, where every lock is refused: a URL or a balancer
		 * that sends the lock statements there.
		 */
		ON_STANDBY,

		/** No answer in time, or no connection: nothing is known. */
		UNPROVEN,

		/** The source is not PostgreSQL: left alone. */
		NOT_POSTGRESQL

	}

	/**
	 * What a session's try of the check's key answered.
	 *
	 * @param acquired whether the key was granted
	 * @param inRecovery whether the server that answered is in recovery (a standby)
	 */
	public record Answer(boolean acquired, boolean inRecovery) {

	}

	/** Return the proof that the second session was refused the key. */
	public static ExclusionProof proven(String source, Duration elapsed) {
		return new ExclusionProof(Outcome.PROVEN, source, "", elapsed);
	}

	/**
	 * Return how the check ends on the first session's answer, or {@code null} when it
	 * holds the key and a second session must try it.
	 */
	public static @Nullable ExclusionProof firstTry(String source, long key, Answer answer, Duration elapsed) {
		if (answer.inRecovery()) {
			return onStandby(source, "the first session", elapsed);
		}
		return answer.acquired() ? null : firstRefused(source, key, elapsed);
	}

	/**
	 * Return what the second session's try of the key the first one holds means: granted,
	 * locks exclude nobody, wherever it ran (a second session on a standby is granted a
	 * key nobody holds there).
	 */
	public static ExclusionProof secondTry(String source, long key, Answer answer, Duration elapsed) {
		return answer.acquired()
				? new ExclusionProof(Outcome.NOT_EXCLUDED, source,
						"a second session was granted key " + key + " while a first session held it", elapsed)
				: proven(source, elapsed);
	}

	private static ExclusionProof onStandby(String source, String session, Duration elapsed) {
		return new ExclusionProof(Outcome.ON_STANDBY, source, session + " was given a server in recovery (a standby)",
				elapsed);
	}

	/**
	 * Return what a failed statement of the check means: a server that refuses the
	 * functions, or nothing known.
	 * @param sqlState the failure's SQLSTATE, or {@code null}
	 * @param message the failure's message
	 */
	public static ExclusionProof failed(String source, @Nullable String sqlState, @Nullable String message,
			Duration elapsed) {
		if (sqlState == null || sqlState.startsWith(CONNECTION_EXCEPTION)) {
			return unproven(source, "no connection (" + message + "; is the database up?)", elapsed);
		}
		String detail = "SQLSTATE " + sqlState + ": " + message;
		return REFUSING_STATES.contains(sqlState) ? new ExclusionProof(Outcome.REFUSED, source, detail, elapsed)
				: unproven(source, "it failed (" + detail + ")", elapsed);
	}

	/** Return a check that could not be made, and why. */
	public static ExclusionProof unproven(String source, String reason, Duration elapsed) {
		return new ExclusionProof(Outcome.UNPROVEN, source, reason, elapsed);
	}

	private static ExclusionProof firstRefused(String source, long key, Duration elapsed) {
		return unproven(source, "the first session was refused key " + key + ", which another session holds", elapsed);
	}

	/** Return why a check was not made when no connection came within the bound. */
	public static String noConnection(Duration timeout) {
		return "no connection within " + timeout.toMillis() + "ms (is the database up?)";
	}

	/**
	 * Return why a check was not made when no second connection came within the bound.
	 */
	public static String noSecondConnection(Duration timeout) {
		return "no second connection within " + timeout.toMillis() + "ms while the first was held (a pool of one?)";
	}

	/**
	 * Return why a check was not made when a statement did not answer within the bound.
	 */
	public static String noAnswer(Duration timeout) {
		return "no answer within " + timeout.toMillis() + "ms (a pooler that queues a session, as PgBouncer with "
				+ "default_pool_size = 1 queues the second?)";
	}

	/** Return a check left alone, as the source is not PostgreSQL. */
	public static ExclusionProof notPostgresql(String source, String product) {
		return new ExclusionProof(Outcome.NOT_POSTGRESQL, source, product, Duration.ZERO);
	}

	/**
	 * Log what the checks found, each at its level (a proof at {@code INFO}, a check not
	 * made at {@code WARN}), and refuse the start if one of them found locks that exclude
	 * nobody, a server that refuses them, or a session given a standby.
	 * @param proofs the checks of a template's sources
	 * @throws IllegalStateException naming every source that fails the start
	 */
	public static void report(List<ExclusionProof> proofs) {
		List<String> failures = new ArrayList<>();
		for (ExclusionProof proof : proofs) {
			if (proof.failsStartup()) {
				failures.add(proof.message());
			}
			else if (proof.outcome() == Outcome.PROVEN) {
				logger.info(proof.message());
			}
			else if (proof.outcome() == Outcome.UNPROVEN) {
				logger.warn(proof.message());
			}
			else {
				logger.debug(proof.message());
			}
		}
		if (!failures.isEmpty()) {
			throw new IllegalStateException(String.join("; and: ", failures));
		}
	}

	/** Return whether the application must not start on what the check found. */
	public boolean failsStartup() {
		return this.outcome == Outcome.NOT_EXCLUDED || this.outcome == Outcome.REFUSED
				|| this.outcome == Outcome.ON_STANDBY;
	}

	/** Return the message of what the check found, for an exception or a log line. */
	public String message() {
		return switch (this.outcome) {
			case PROVEN -> "Advisory locks on " + this.source + " exclude: a second session was refused a key a first "
					+ "one held (startup check, " + this.elapsed.toMillis() + "ms)";
			case NOT_EXCLUDED -> "Advisory locks on " + this.source + " exclude nobody: " + this.detail
					+ ", so a lock taken there would protect nothing. Known causes: a load balancer or proxy that "
					+ "sends sessions to different servers (pgpool-II balancing to a standby, see docs/pgpool.md); "
					+ "a PostgreSQL-compatible server whose advisory lock functions answer without locking "
					+ "(CockroachDB before its transaction-level locks, YugabyteDB with "
					+ "yb_silence_advisory_locks_not_supported_error on; see docs/compatibility.md). Connect to the "
					+ "PostgreSQL primary directly or through a pooler that keeps a transaction on one server. To "
					+ "start anyway, at the cost of every lock: " + SWITCH + "=false";
			case REFUSED -> "The server behind " + this.source + " refuses the advisory lock functions (" + this.detail
					+ "): a server without them (Aurora DSQL) cannot serve advisory locks, and a role "
					+ "needs EXECUTE on pg_try_advisory_xact_lock and its kin (docs/compatibility.md)";
			case ON_STANDBY -> "Advisory locks on " + this.source + " would be refused: " + this.detail
					+ ", where every lock is refused, as it would exclude nobody on the primary. Known causes: a URL "
					+ "that names a standby; pgpool-II balancing the lock statements to a standby (allow_sql_comments "
					+ "= on with a write_function_list that leaves out the advisory lock functions, see "
					+ "docs/pgpool.md). Connect to the primary, or have the balancer send the lock statements there. "
					+ "To start anyway: " + SWITCH + "=false";
			case UNPROVEN -> "Could not prove at startup that advisory locks on " + this.source + " exclude: "
					+ this.detail + ". Locks are taken as usual; the check runs again at the next start "
					+ "(docs/poolers.md, \"The startup check\")";
			case NOT_POSTGRESQL -> this.source + " is " + this.detail + ", not PostgreSQL: no startup check";
		};
	}

}
