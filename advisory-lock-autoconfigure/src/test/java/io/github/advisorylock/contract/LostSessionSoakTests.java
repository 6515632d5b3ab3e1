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

package io.github.advisorylock.contract;

import java.time.Duration;
import java.util.UUID;

import io.github.advisorylock.AdvisoryLockKeys;
import io.github.advisorylock.LockLostException;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgBouncer;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.R2dbcConnectionFactories;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A soak of reactive invocation-scoped calls through PgBouncer whose session the server
 * ends under their work: each call ends with the loss, and its connection closes. When
 * PgBouncer's client connection dies, the failure of the session's rollback can reach the
 * call while more of PgBouncer's messages wait in the driver behind it; the statements
 * and the close that follow must not run on the thread that delivers that failure
 * (r2dbc-postgresql 1.1 then spins for ever in the connection's close, and with it the
 * event loop of the connection). A round meets that moment now and then, which is why
 * there are many.
 *
 * @author advisory-lock authors
 */
@Tag("reactive")
@ExtendWith(NoAdvisoryLocksLeft.class)
class LostSessionSoakTests {

	private static final int ROUNDS = 40;

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private final String namespace = "lost-" + UUID.randomUUID();

	private final PgLocks pgLocks = new PgLocks(TestDatabase.get().dataSource());

	@Test
	void eachCallWhoseSessionEndsUnderItsWorkEndsWithTheLossAndClosesItsConnection() {
		ConnectionPool pool = R2dbcConnectionFactories.throughPgBouncer(PgBouncer.POOLED, 2);
		try {
			R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(pool);
			for (int round = 0; round < ROUNDS; round++) {
				long key = AdvisoryLockKeys.of(this.namespace, round);
				LockRequest request = LockRequest.of(this.namespace, round).withScope(LockScope.INVOCATION);
				// The work returns once the backend has exited: only the release finds
				// the
				// loss.
				assertThatExceptionOfType(LockLostException.class).as("round %d", round)
					.isThrownBy(() -> locks
						.execute(request,
								(handle) -> Mono.fromCallable(() -> this.pgLocks.terminateHolderOf(key))
									.subscribeOn(Schedulers.boundedElastic()))
						.blockLast(HANG));
			}
		}
		finally {
			pool.dispose();
		}
	}

}
