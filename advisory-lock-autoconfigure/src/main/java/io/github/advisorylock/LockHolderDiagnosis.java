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

package io.github.advisorylock;

import java.sql.Connection;
import java.util.List;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

/**
 * Names the sessions that hold a lock a call could not take, for its
 * {@link LockBusyException}; asked on the failure path only. The auto-configured one
 * reads {@code pg_locks}; a bean of this type replaces it.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public interface LockHolderDiagnosis {

	/**
	 * Diagnose a lock found held on a connection that can still run a query: the caller's
	 * after a {@link WaitMode#TRY}, or an invocation-scoped lock's after its transaction
	 * was rolled back.
	 * @param connection the connection
	 * @param keys the keys found held
	 * @param mode the mode requested
	 * @return what was found; never throws
	 */
	Diagnosis onConnection(Connection connection, List<Long> keys, LockMode mode);

	/**
	 * Diagnose a {@link WaitMode#BLOCK} that ran out of time, on another connection:
	 * PostgreSQL has aborted the caller's transaction, so its own can run nothing.
	 * @param dataSource the {@code DataSource} of the caller's connection, the server to
	 * ask
	 * @param caller the caller's connection, to tell its own locks apart
	 * @param keys the key found held and those after it
	 * @param mode the mode requested
	 * @return what was found; never throws
	 */
	Diagnosis afterTimeout(DataSource dataSource, Connection caller, List<Long> keys, LockMode mode);

	/**
	 * What a diagnosis found: the holders, or why there are none to report.
	 *
	 * @param holders the holders, or {@code null} if they were not diagnosed
	 * @param notDiagnosed why not, or {@code null}
	 * @param failure the exception of a failed diagnosis, or {@code null}; it is
	 * suppressed in the busy exception
	 */
	record Diagnosis(@Nullable List<LockHolderInfo> holders, @Nullable String notDiagnosed,
			@Nullable Exception failure) {

		/**
		 * Return a diagnosis that found these holders.
		 * @param holders the holders, possibly none (they finished in the meantime)
		 * @return the diagnosis
		 */
		public static Diagnosis of(List<LockHolderInfo> holders) {
			return new Diagnosis(List.copyOf(holders), null, null);
		}

		/**
		 * Return a diagnosis that could not name the holders.
		 * @param reason why, for the exception's message
		 * @param failure the exception that stopped it, or {@code null}
		 * @return the diagnosis
		 */
		public static Diagnosis notDiagnosed(String reason, @Nullable Exception failure) {
			return new Diagnosis(null, reason, failure);
		}

	}

}
