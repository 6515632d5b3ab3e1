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

/**
 * The faults a chaos run injects, one at a time.
 *
 * @author advisory-lock authors
 */
enum FaultKind {

	/**
	 * SIGKILL of a random instance, which is then started again: its sessions end as its
	 * sockets close.
	 */
	KILL_INSTANCE("SIGKILL of an instance, then a new one started"),

	/**
	 * SIGSTOP of the instance running the job, until another instance runs it (its silent
	 * lock session was ended after three heartbeats), then SIGCONT.
	 */
	FREEZE_JOB_RUNNER("SIGSTOP of the instance running the job, SIGCONT after another took over"),

	/**
	 * SIGSTOP of the instance in a fenced transaction of the fenced-batches job (its
	 * batch written, not yet committed), until another instance has committed a batch of
	 * a newer run, then SIGCONT.
	 */
	FREEZE_FENCED_WRITER("SIGSTOP of the fenced job's holder in a fenced transaction, SIGCONT after another "
			+ "instance committed a batch"),

	/**
	 * The network between the fenced job's holder and the database cut (its relays stop
	 * forwarding), until another instance has committed a batch of a newer run, then
	 * restored.
	 */
	CUT_NETWORK("the fenced job's holder cut off from the database (a frozen relay), restored after another "
			+ "instance committed a batch"),

	/**
	 * {@code pg_terminate_backend} of one to three random client sessions of the
	 * instances.
	 */
	TERMINATE_SESSIONS("pg_terminate_backend of 1 to 3 random client sessions"),

	/** The primary stopped and started again on the same data directory. */
	RESTART_POSTGRES("PostgreSQL primary stopped (pg_ctl -m " + ChaosCluster.STOP_MODE + ") and started"),

	/**
	 * The standby promoted, the old primary stopped the hard way, PgBouncer re-pointed at
	 * the new primary, and a fresh standby built from it.
	 */
	FAILOVER("failover: standby promoted (pg_ctl promote), old primary stopped (pg_ctl -m immediate), "
			+ "PgBouncer re-pointed, a new standby built"),

	/** PgBouncer stopped (SIGTERM, its immediate shutdown) and started again. */
	RESTART_PGBOUNCER("PgBouncer stopped (SIGTERM, immediate shutdown) and started"),

	/**
	 * A session from outside the instances holds a hot user's setup-request lock until a
	 * request for that user has answered busy, past the lock timeout.
	 */
	HOLD_HOT_LOCK("a session from outside holding a hot user's lock past the timeout");

	private final String description;

	FaultKind(String description) {
		this.description = description;
	}

	/**
	 * Return what the fault does, for the report.
	 * @return the description
	 */
	String description() {
		return this.description;
	}

}
