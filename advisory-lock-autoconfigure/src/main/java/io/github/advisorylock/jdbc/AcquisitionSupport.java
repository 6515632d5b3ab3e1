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

import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockHolderDiagnosis;
import io.github.advisorylock.LockHolderDiagnosis.Diagnosis;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockTransactionException;
import io.github.advisorylock.core.LockAcquisitions;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * What the transaction-scoped and the invocation-scoped executors add, on a JDBC
 * connection, to the {@link LockAcquisitions} of every driver: the bounded wait, and the
 * exceptions of an acquisition that failed, translated by the template's
 * {@link SQLExceptionTranslator} and naming the holders where a
 * {@link LockHolderDiagnosis} is set. The template sets it up (its setters check the
 * values) and hands it to both executors.
 */
final class AcquisitionSupport extends LockAcquisitions {

	/**
	 * PostgreSQL's SQLSTATE for {@code lock_not_available}, raised when
	 * {@code lock_timeout} runs out.
	 */
	static final String LOCK_NOT_AVAILABLE = "55P03";

	private SQLExceptionTranslator exceptionTranslator = SqlExceptions.postgresTranslator();

	private @Nullable LockHolderDiagnosis holderDiagnosis;

	AcquisitionSupport() {
		// The template's log, where a skip has always been told.
		super(LogFactory.getLog(AdvisoryLockTemplate.class), AdvisoryLockTemplate.DEFAULT_TIMEOUT);
	}

	void setExceptionTranslator(SQLExceptionTranslator exceptionTranslator) {
		this.exceptionTranslator = exceptionTranslator;
	}

	void setHolderDiagnosis(@Nullable LockHolderDiagnosis holderDiagnosis) {
		this.holderDiagnosis = holderDiagnosis;
	}

	/**
	 * Wait for the key a try found held and those after it, bounded by the request's
	 * timeout.
	 * @return {@code null} when they were taken, or the driver's report of a wait that
	 * ran out of time
	 * @throws DataAccessException for any other failure
	 */
	@Nullable SQLException waitFor(Connection connection, LockRequest request, LockKeys keys, long busyKey) {
		try {
			AdvisoryLockStatements.waitLock(connection, request.mode(), keys.waitedFor(busyKey), timeout(request),
					request.namespace(), this);
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
	 * Refuse a lock that the try's check refused, naming the condition that failed: one
	 * more round trip, on this failure path only. A failure to read it must not hide the
	 * refusal: it is attached as suppressed.
	 */
	static LockTransactionException explainRefusal(Connection connection, LockRequest request) {
		try {
			return LockFailures.refusal(request, AdvisoryLockStatements.readRefusalReason(connection));
		}
		catch (SQLException ex) {
			return LockFailures.unexplainedRefusal(request, ex);
		}
	}

	/**
	 * Translate a failure of the lock statements into Spring's vocabulary.
	 */
	DataAccessException translateLockFailure(SQLException ex, LockRequest request, LockKeys keys) {
		return translate(ex, task(request, keys));
	}

	/**
	 * Make the exception of a lock not acquired, naming its holders when a diagnosis is
	 * configured, and ending with what the library knows of the holder.
	 * @param diagnose asks the diagnosis, on the failure path only
	 * @param holderHint the end of the message, or {@code null}
	 */
	LockBusyException busyException(LockRequest request, LockKeys keys, @Nullable Duration timeout,
			@Nullable Throwable cause, Function<LockHolderDiagnosis, Diagnosis> diagnose, @Nullable String holderHint) {
		return LockFailures.busyException(request.namespace(), keys, timeout, cause, this.holderDiagnosis, diagnose,
				holderHint);
	}

	/**
	 * Translate any other failure of a JDBC call.
	 * @param task what the call did, for the message
	 */
	DataAccessException translate(SQLException ex, String task) {
		return SqlExceptions.translate(this.exceptionTranslator, task, null, ex);
	}

}
