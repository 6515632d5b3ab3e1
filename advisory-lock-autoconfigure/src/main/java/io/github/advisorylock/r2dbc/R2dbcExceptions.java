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

package io.github.advisorylock.r2dbc;

import io.r2dbc.spi.R2dbcException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DeadlockLoserDataAccessException;
import org.springframework.r2dbc.connection.ConnectionFactoryUtils;

/**
 * Spring's vocabulary for what the R2DBC driver reports, read as the JDBC path reads it:
 * {@code 55P03}, a lock wait that ran out of time, is told apart first; {@code 40P01}, a
 * deadlock, is a {@link DeadlockLoserDataAccessException}, as Spring's JDBC translator
 * makes it (its R2DBC translation makes it a mere transient failure).
 *
 * @author advisory-lock authors
 */
final class R2dbcExceptions {

	private static final String LOCK_NOT_AVAILABLE = "55P03";

	private static final String DEADLOCK_DETECTED = "40P01";

	private R2dbcExceptions() {
	}

	/** Return whether a failure is a lock wait that ran out of {@code lock_timeout}. */
	static boolean isLockTimeout(Throwable ex) {
		return ex instanceof R2dbcException r2dbc && LOCK_NOT_AVAILABLE.equals(r2dbc.getSqlState());
	}

	/** Translate what the driver reported; anything else is returned as it is. */
	// DeadlockLoserDataAccessException is deprecated, but what the JDBC path gives.
	@SuppressWarnings("deprecation")
	static Throwable translate(String task, @Nullable String sql, Throwable ex) {
		if (!(ex instanceof R2dbcException r2dbc)) {
			return ex;
		}
		if (DEADLOCK_DETECTED.equals(r2dbc.getSqlState())) {
			return new DeadlockLoserDataAccessException(task + ": " + r2dbc.getMessage(), r2dbc);
		}
		return ConnectionFactoryUtils.convertR2dbcException(task, sql, r2dbc);
	}

}
