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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockBusyException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.LockAttempt;
import io.github.advisorylock.core.LockFailures;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.PermitSlots;
import io.github.advisorylock.core.plan.FencedKeys;
import io.github.advisorylock.core.session.HeldSession;
import io.github.advisorylock.core.sql.FenceSql.FenceResult;
import io.github.advisorylock.core.sql.FenceSql.SessionMarker;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.LockSql.TryResult;
import io.github.advisorylock.core.sql.PermitSql;
import io.github.advisorylock.core.sql.PermitSql.PermitTry;
import io.github.advisorylock.jdbc.JdbcDataSources.BoundConnection;
import org.jspecify.annotations.Nullable;

/**
 * The statements of a transaction-scoped lock on the current transaction's JDBC
 * connection, their failures translated and a refusal explained.
 *
 * @author advisory-lock authors
 */
final class JdbcTransactionLockStatements {

	private final JdbcAcquisitionSupport support;

	JdbcTransactionLockStatements(JdbcAcquisitionSupport support) {
		this.support = support;
	}

	/**
	 * Try every key, in order, in the transaction. A {@code SKIP} of several keys that
	 * finds one held gives back those taken before it, with a savepoint around the try.
	 * @return the first key found held, or {@code null} when every one was taken
	 */
	@Nullable Long tryLock(BoundConnection bound, LockRequest request, LockKeys keys) {
		Connection connection = bound.connection();
		try {
			Savepoint savepoint = (request.waitMode() == WaitMode.SKIP && keys.keys().size() > 1)
					? connection.setSavepoint() : null;
			TryResult tried;
			try (PreparedStatement statement = connection
				.prepareStatement(LockSql.JDBC.trySql(request.mode(), keys.keys().size(), request.namespace()))) {
				JdbcLockStatements.bindKeys(connection, statement, 1, keys.keys(), keys.keys().size() > 1);
				try (ResultSet result = statement.executeQuery()) {
					tried = JdbcLockStatements.tryResult(result, keys.keys());
				}
			}
			if (savepoint != null) {
				if (tried.busyKey() != null) {
					connection.rollback(savepoint);
				}
				connection.releaseSavepoint(savepoint);
			}
			if (!tried.lockable()) {
				throw JdbcAcquisitionSupport.explainRefusal(connection, request);
			}
			return tried.busyKey();
		}
		catch (SQLException ex) {
			throw this.support.translateLockFailure(ex, request, keys);
		}
	}

	/**
	 * Take one free permit of a limit: try every slot, in order, in one statement that
	 * takes one at most.
	 * @return the slot taken, or {@code null} when every one is held
	 */
	@Nullable Long tryPermit(BoundConnection bound, LockRequest request, PermitSlots slots) {
		try {
			PermitTry tried;
			try (PreparedStatement statement = bound.connection()
				.prepareStatement(PermitSql.JDBC.trySql(slots.slots().size(), request.namespace()))) {
				for (int slot = 0; slot < slots.slots().size(); slot++) {
					statement.setLong(slot + 1, slots.slots().get(slot));
				}
				try (ResultSet result = statement.executeQuery()) {
					boolean row = result.next();
					tried = PermitTry.read(row, row ? result.getObject(1, Integer.class) : null, slots.slots());
				}
			}
			if (!tried.lockable()) {
				throw JdbcAcquisitionSupport.explainRefusal(bound.connection(), request);
			}
			return tried.slot();
		}
		catch (SQLException ex) {
			throw this.support.translateLockFailure(ex, request, slots.all());
		}
	}

	/**
	 * Send one slice of a limit's wait on a connection in a transaction, a Spring one's
	 * or a lock session's.
	 * @return the slot taken, or {@code null} when the slice ran out of time
	 * @throws io.github.advisorylock.LockTransactionException if the slice ran on a
	 * standby, which took nothing
	 */
	static @Nullable Long waitPermitSlice(Connection connection, LockRequest request, PermitSlots slots,
			boolean resumed, Duration slice, int waited, JdbcAcquisitionSupport support) {
		Long slot;
		try {
			slot = JdbcLockStatements.waitPermitSlice(connection, slots.slots(), resumed, slice, waited,
					request.namespace(), support.lifecycle());
		}
		catch (SQLException ex) {
			if (JdbcAcquisitionSupport.LOCK_NOT_AVAILABLE.equals(ex.getSQLState())) {
				return null;
			}
			throw support.translateLockFailure(ex, request, slots.all());
		}
		if (slot == null) {
			throw LockFailures.recoveryRefusal(request);
		}
		return slot;
	}

	/** End a limit's wait that ran out of time on a connection in a transaction. */
	static void endPermitWait(Connection connection, LockRequest request, PermitSlots slots,
			JdbcAcquisitionSupport support) {
		try {
			JdbcLockStatements.endPermitWait(connection);
		}
		catch (SQLException ex) {
			throw support.translateLockFailure(ex, request, slots.all());
		}
	}

	/**
	 * Make the transaction a fenced write: take the fence of each key and check that the
	 * enclosing sessions still hold them, in one round trip.
	 * @return the first key whose session no longer holds it, or {@code null}
	 */
	@Nullable Long fence(BoundConnection bound, LockRequest request, FencedKeys fenced) {
		List<SessionMarker> markers = new ArrayList<>();
		for (HeldSession held : fenced.sessions()) {
			markers.add(((JdbcLockSession) held).marker());
		}
		try {
			FenceResult result = JdbcFencedWriteStatements.fence(bound.connection(), fenced.keys().keys(), markers,
					fenced.idleTimeout(), request);
			if (!result.lockable()) {
				throw JdbcAcquisitionSupport.explainRefusal(bound.connection(), request);
			}
			return result.lostKey();
		}
		catch (SQLException ex) {
			throw this.support.translateLockFailure(ex, request, fenced.keys());
		}
	}

	/** Make the exception of a lock not acquired, naming holders if diagnosis is set. */
	LockBusyException busyException(BoundConnection bound, LockRequest request, LockKeys keys, LockAttempt attempt,
			@Nullable Duration timeout, @Nullable String holderHint) {
		long busyKey = attempt.foundHeld();
		if (attempt.outcome() == Outcome.TIMEOUT) {
			return this.support.busyException(
					request, keys, timeout, attempt.timedOut(), (diagnosis) -> diagnosis
						.afterTimeout(bound.dataSource(), bound.connection(), keys.waitedFor(busyKey), request.mode()),
					holderHint);
		}
		List<Long> held = attempt.foundHeld(request, keys);
		return this.support.busyException(request, keys, null, null,
				(diagnosis) -> diagnosis.onConnection(bound.connection(), held, request.mode()), holderHint);
	}

}
