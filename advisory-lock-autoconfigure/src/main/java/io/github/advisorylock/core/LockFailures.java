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
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockHolderDiagnosis.Diagnosis;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.sql.LockSql;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;

/**
 * The exceptions and log text of a lock not granted, the same on every driver and scope.
 * In each factory, {@code request} (or {@code namespace}) is the refused call, and the
 * return value is the exception to throw or signal.
 *
 * @author advisory-lock authors
 */
public final class LockFailures {

	private LockFailures() {
	}

	/**
	 * Make the exception of a lock not acquired, naming its holders when a diagnosis is
	 * configured, and what the library knows of the holder.
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @param cause the driver's report of the timeout, or {@code null}
	 * @param holderDiagnosis the diagnosis, or {@code null} for none
	 * @param diagnose asks the diagnosis, on the failure path only
	 * @param holderHint see {@code HeldSession.holderHint}, or {@code null}
	 */
	public static LockBusyException busyException(String namespace, LockKeys keys, @Nullable Duration timeout,
			@Nullable Throwable cause, @Nullable LockHolderDiagnosis holderDiagnosis,
			Function<LockHolderDiagnosis, Diagnosis> diagnose, @Nullable String holderHint) {
		Diagnosis diagnosis = (holderDiagnosis != null) ? diagnose(holderDiagnosis, diagnose) : null;
		return busyException(namespace, keys, timeout, cause, diagnosis, holderHint);
	}

	/**
	 * Make the exception of a lock not acquired, naming the holders a diagnosis found.
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @param cause the driver's report of the timeout, or {@code null}
	 * @param diagnosis what the diagnosis found, or {@code null} when none was asked
	 * @param holderHint see {@code HeldSession.holderHint}, or {@code null}
	 */
	public static LockBusyException busyException(String namespace, LockKeys keys, @Nullable Duration timeout,
			@Nullable Throwable cause, @Nullable Diagnosis diagnosis, @Nullable String holderHint) {
		LockBusyException ex = new LockBusyException(namespace, keys.values(), keys.keys(), timeout, cause,
				(diagnosis != null) ? diagnosis.holders() : null, (diagnosis != null) ? diagnosis.notDiagnosed() : null,
				holderHint);
		if (diagnosis != null && diagnosis.failure() != null) {
			ex.addSuppressed(diagnosis.failure());
		}
		return ex;
	}

	/**
	 * Make the exception of a lock not acquired, without naming its holders.
	 * @param timeout the timeout that ran out, or {@code null} when the call did not wait
	 * @param cause the driver's report of the timeout, or {@code null}
	 */
	public static LockBusyException busyException(String namespace, LockKeys keys, @Nullable Duration timeout,
			@Nullable Throwable cause) {
		return new LockBusyException(namespace, keys.values(), keys.keys(), timeout, cause);
	}

	private static Diagnosis diagnose(LockHolderDiagnosis holderDiagnosis,
			Function<LockHolderDiagnosis, Diagnosis> diagnose) {
		try {
			return diagnose.apply(holderDiagnosis);
		}
		catch (RuntimeException ex) {
			// A diagnosis that throws, against its contract, must not hide the busy lock.
			return Diagnosis.notDiagnosed("the diagnosis failed (" + ex + ")", ex);
		}
	}

	/**
	 * Refuse a lock in a transaction above READ COMMITTED.
	 * @param isolation the transaction's isolation, or {@code null} when not known
	 */
	public static LockTransactionException isolationRefusal(LockRequest request, @Nullable String isolation) {
		return refused(request, "Advisory lock '" + request.namespace() + "' needs isolation READ COMMITTED, but "
				+ "the transaction runs " + ((isolation != null) ? isolation : "above it") + ": its snapshot would be "
				+ "taken before the lock is granted, so the check after the lock could miss the previous holder's "
				+ "write. Declare @Transactional(isolation = Isolation.READ_COMMITTED), or take the lock in a READ "
				+ "COMMITTED transaction");
	}

	/**
	 * Refuse a lock on a connection in auto-commit mode: the current transaction is
	 * another resource's, and the lock would end with its statement.
	 * @param resource the kind of resource, such as {@code DataSource}
	 * @param manager the transaction manager that would manage it
	 */
	public static LockTransactionException autoCommitRefusal(LockRequest request, String resource, String manager) {
		return refused(request, "Advisory lock '" + request.namespace() + "' found the connection of its " + resource
				+ " in auto-commit mode: the current transaction is managed for another resource, so the lock would "
				+ "be released at once. Use " + manager + " for this " + resource);
	}

	/**
	 * Say that an invocation-scoped call found every connection of its own in use: it
	 * fails at once rather than wait for one another call holds.
	 * @param maxConnections the bound reached
	 * @return the message of the driver's exception
	 */
	public static String noSessionConnectionLeft(String namespace, int maxConnections) {
		return "Invocation-scoped advisory lock '" + namespace + "' needs a connection of its own, and all "
				+ maxConnections + " are holding other locks: raise advisory-lock.invocation.max-connections, or run "
				+ "fewer invocation-scoped calls at once";
	}

	/** Refuse a lock that the try's check refused, naming the condition that failed. */
	public static LockTransactionException refusal(LockRequest request, LockSql.RefusalReason reason) {
		return reason.onStandby() ? recoveryRefusal(request) : isolationRefusal(request, reason.isolation());
	}

	/**
	 * Refuse a lock asked of a server in recovery (a standby).
	 */
	public static LockTransactionException recoveryRefusal(LockRequest request) {
		return refused(request, "Advisory lock '" + request.namespace() + "' was asked of a server in recovery (a "
				+ "standby): PostgreSQL's advisory locks relate only to the server that grants them, so a lock there "
				+ "excludes nobody on the primary. Take the lock in a transaction on the primary: a routing DataSource "
				+ "that sends read-only transactions to a replica must send this one to the primary");
	}

	/**
	 * Refuse a lock whose check failed when reading which condition failed did too.
	 * @param readFailure the failure to read it, suppressed so as not to hide the refusal
	 */
	public static LockTransactionException unexplainedRefusal(LockRequest request, Throwable readFailure) {
		LockTransactionException refusal = refused(request,
				"Advisory lock '" + request.namespace() + "' was "
						+ "refused: the transaction runs above READ COMMITTED, or the server is in recovery (reading "
						+ "which one failed)");
		refusal.addSuppressed(readFailure);
		return refusal;
	}

	/**
	 * Refuse a transaction-scoped lock called without an actual transaction.
	 */
	public static LockTransactionException noTransactionRefusal(LockRequest request) {
		return refused(request, "Advisory lock '" + request.namespace() + "' needs an actual transaction, and "
				+ "none is active: call it inside @Transactional (propagation REQUIRED, REQUIRES_NEW or MANDATORY; "
				+ "SUPPORTS without an outer transaction does not start one), because a transaction-level lock "
				+ "is released when its transaction ends");
	}

	/**
	 * Refuse a transaction-scoped lock subscribed to without a reactive transaction.
	 */
	public static LockTransactionException noReactiveTransactionRefusal(LockRequest request) {
		return refused(request, "Advisory lock '" + request.namespace() + "' needs an actual reactive "
				+ "transaction, and the subscriber has none: call it inside @Transactional, or wrap the caller in "
				+ "TransactionalOperator.transactional(...) (propagation REQUIRED, REQUIRES_NEW or MANDATORY). A "
				+ "TransactionalOperator inside the locked method begins too late: the lock is asked for at "
				+ "subscription, and a transaction-level lock is released when its transaction ends");
	}

	/**
	 * Refuse an invocation-scoped lock called inside a transaction that began before it.
	 * @param completing whether that transaction is completing (synchronizations cleared)
	 */
	public static LockTransactionException enclosingTransactionRefusal(LockRequest request, boolean completing) {
		String where = completing
				? "while a transaction completes (from an AFTER_COMMIT @TransactionalEventListener, say), where "
						+ "Spring cannot show whether a transaction that began before it is suspended around it"
				: "inside a transaction that began before it";
		return refused(request, "Invocation-scoped advisory lock '" + request.namespace() + "' was called " + where
				+ ": the lock would be released when the call returns, before that transaction commits, so "
				+ "another instance could act on what it has not committed yet. Call it outside the transaction (put "
				+ "@Transactional on the method itself or on what it calls; from a listener, put @Async on the "
				+ "listener so the call runs on a thread without one), or use scope TRANSACTION.");
	}

	/**
	 * Refuse a fenced write whose enclosing invocation-scoped call has ended and released
	 * its lock: a task the call fanned out to and did not wait for.
	 * @param description the enclosing lock, as {@code HeldSession.description()} gives
	 * it
	 */
	public static IllegalStateException releasedBeforeFencedWrite(String description) {
		return new IllegalStateException("The call that held advisory lock " + description + " (invocation scope) has "
				+ "ended, and released it, before this fenced write: wait inside the locked call for the work it fans "
				+ "out to");
	}

	/**
	 * Refuse a lock once its template is closed, so that no locked work starts after
	 * shutdown. Not a {@link LockBusyException}: nobody else need hold the lock.
	 * @param cause what the wait failed with when it was cancelled, or {@code null}
	 */
	public static CannotAcquireLockException shuttingDown(String namespace, @Nullable Throwable cause) {
		return new CannotAcquireLockException(
				"Advisory lock '" + namespace + "' was not acquired: the application is "
						+ "shutting down (its advisory lock template was closed), so no locked work starts any more",
				cause);
	}

	/**
	 * Refuse an {@code assertHeld} for keys the caller does not hold.
	 * @param namespace the namespace of the keys
	 * @param values the texts of their values
	 */
	public static IllegalStateException notHeld(String namespace, List<String> values) {
		return new IllegalStateException("Advisory lock " + AdvisoryLockKeys.printable(namespace, values) + " is not "
				+ "held by the current transaction, nor by an enclosing invocation-scoped call on this thread. Most "
				+ "often the call to the locked method did not go through its Spring proxy: a call on 'this' from "
				+ "another method of the same class skips @AdvisoryLocked. Call it through the bean (inject it), or "
				+ "take the lock with AdvisoryLockOperations first. (Only locks this library took are seen.)");
	}

	/**
	 * Tell a template's DEBUG log that a {@code SKIP} found a key held.
	 * @param logger the template's log, where users look for it
	 * @param keys the keys it asked for
	 */
	public static void logSkipped(Log logger, LockRequest request, LockKeys keys) {
		if (logger.isDebugEnabled()) {
			logger.debug(skippedMessage(request.namespace(), request.scope(), keys.values()));
		}
	}

	/**
	 * Return what a failed lock statement was doing, for the driver's translated
	 * exception.
	 * @param keys the keys the statement took
	 * @return the task, naming the lock and its keys
	 */
	public static String task(LockRequest request, LockKeys keys) {
		return "Acquire advisory lock " + AdvisoryLockKeys.printable(request.namespace(), keys.values()) + " (keys "
				+ keys.keys() + ")";
	}

	/**
	 * Return the DEBUG log text of a {@code SKIP} that found a key held.
	 * @param scope the scope of the call
	 * @param values the texts of the values of its keys
	 * @return the text to log
	 */
	public static String skippedMessage(String namespace, LockScope scope, List<String> values) {
		return "Skipped the work under advisory lock " + AdvisoryLockKeys.printable(namespace, values) + " ("
				+ scope.name().toLowerCase(Locale.ROOT) + " scope): a key is held elsewhere";
	}

	/**
	 * Return a refusal of a call, naming its caller first where the request names one.
	 */
	public static LockTransactionException refused(LockRequest request, String message) {
		return new LockTransactionException(inCaller(request, message));
	}

	/**
	 * Return what a limit's busy error ends with: that every permit is held, then the
	 * hint.
	 * @param holderHint what the library knows of the holder, or {@code null}
	 * @return the end of the message, or {@code null}
	 */
	public static @Nullable String limitHint(LockRequest request, @Nullable String holderHint) {
		if (request.permits() == 1) {
			return holderHint;
		}
		String full = "all " + request.permits() + " permits of the limit are held";
		return (holderHint != null) ? full + "; " + holderHint : full;
	}

	/**
	 * Return a message about a call, naming its caller first where the request names one.
	 */
	public static String inCaller(LockRequest request, String message) {
		return (request.caller() != null) ? request.caller() + ": " + message : message;
	}

}
