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

package io.github.advisorylock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockHolderDiagnosis.Diagnosis;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockLifecycle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * What both JDBC executors need beyond the template's settings: the bounded wait, which
 * the template's close cancels, the DEBUG line of a skip, and the exceptions of a failed
 * acquisition, translated by the template's {@link SQLExceptionTranslator} and naming the
 * holders where a {@link LockHolderDiagnosis} is set.
 */
final class JdbcAcquisitionSupport {

	/** SQLSTATE {@code lock_not_available}, raised when {@code lock_timeout} runs out. */
	static final String LOCK_NOT_AVAILABLE = "55P03";

	/** The template's log, where users look for a skip. */
	private static final Log logger = LogFactory.getLog(AdvisoryLockTemplate.class);

	private final LockLifecycle lifecycle;

	private SQLExceptionTranslator exceptionTranslator = JdbcExceptions.postgresTranslator();

	private @Nullable LockHolderDiagnosis holderDiagnosis;

	JdbcAcquisitionSupport(LockLifecycle lifecycle) {
		this.lifecycle = lifecycle;
	}

	/** Return the template's lifecycle, where a wait is registered while it runs. */
	LockLifecycle lifecycle() {
		return this.lifecycle;
	}

	void setExceptionTranslator(SQLExceptionTranslator exceptionTranslator) {
		this.exceptionTranslator = exceptionTranslator;
	}

	void setHolderDiagnosis(@Nullable LockHolderDiagnosis holderDiagnosis) {
		this.holderDiagnosis = holderDiagnosis;
	}

	/**
	 * Wait for the key a try found held and those after it, within the timeout.
	 * @return {@code null} when they were taken, or the driver's report of a timeout
	 * @throws LockTransactionException if the wait ran on a standby, which took nothing
	 * @throws DataAccessException for any other failure
	 */
	@Nullable SQLException waitFor(Connection connection, LockRequest request, LockKeys keys, long busyKey, Duration timeout) {
		return bounded(
				() -> JdbcLockStatements.waitLock(connection, request.mode(), keys.waitedFor(busyKey), timeout,
						request.namespace(), this.lifecycle),
				request, keys, () -> LockFailures.recoveryRefusal(request));
	}

	/**
	 * Wait for the one key of a request without a try first, within the timeout.
	 * @return {@code null} when it was taken, or the driver's report of a timeout
	 * @throws LockTransactionException if a lock is not allowed here, which took nothing
	 * @throws DataAccessException for any other failure
	 */
	@Nullable SQLException waitOne(Connection connection, LockRequest request, LockKeys keys, Duration timeout) {
		return bounded(() -> JdbcLockStatements.waitOne(connection, request.mode(), keys.keys().get(0), timeout,
				request.namespace(), this.lifecycle), request, keys, () -> explainRefusal(connection, request));
	}

	/**
	 * Run a bounded wait: a timeout is an outcome, answered; no row is a refusal; any
	 * other failure is translated.
	 */
	private @Nullable SQLException bounded(SqlWait wait, LockRequest request, LockKeys keys,
			Supplier<LockTransactionException> refusal) {
		try {
			if (!wait.run()) {
				throw refusal.get();
			}
			return null;
		}
		catch (SQLException ex) {
			if (LOCK_NOT_AVAILABLE.equals(ex.getSQLState())) {
				return ex;
			}
			throw translateLockFailure(ex, request, keys);
		}
	}

	/**
	 * Refuse a lock the try's check refused, naming the condition read in one more round
	 * trip; a failure to read it must not hide the refusal.
	 */
	static LockTransactionException explainRefusal(Connection connection, LockRequest request) {
		try {
			return LockFailures.refusal(request, JdbcLockStatements.readRefusalReason(connection));
		}
		catch (SQLException ex) {
			return LockFailures.unexplainedRefusal(request, ex);
		}
	}

	/** Translate a failure of the lock statements into Spring's vocabulary. */
	DataAccessException translateLockFailure(SQLException ex, LockRequest request, LockKeys keys) {
		return translate(ex, LockFailures.task(request, keys));
	}

	/** Tell the template's DEBUG log that a {@code SKIP} found a key held. */
	void logSkipped(LockRequest request, LockKeys keys) {
		LockFailures.logSkipped(logger, request, keys);
	}

	/**
	 * Make the exception of a lock not acquired, naming holders if a diagnosis is set.
	 * @param holderHint what the library knows of the holder, or {@code null}
	 */
	LockBusyException busyException(LockRequest request, LockKeys keys, @Nullable Duration timeout,
			@Nullable Throwable cause, Function<LockHolderDiagnosis, Diagnosis> diagnose, @Nullable String holderHint) {
		return LockFailures.busyException(request.namespace(), keys, timeout, cause, this.holderDiagnosis, diagnose,
				holderHint);
	}

	/**
	 * A waiting statement, run on the driver.
	 */
	@FunctionalInterface
	private interface SqlWait {

		/**
		 * Run it.
		 * @return whether it answered its row
		 */
		boolean run() throws SQLException;

	}

	/** Translate any other failure of a JDBC call, naming its task. */
	DataAccessException translate(SQLException ex, String task) {
		return JdbcExceptions.translate(this.exceptionTranslator, task, null, ex);
	}

}
