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

import java.time.Duration;
import java.util.List;

import io.github.advisorylock.LockHolderDiagnosis.Diagnosis;
import io.github.advisorylock.LockHolderInfo;
import io.github.advisorylock.LockMode;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.PgLocksSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Row;
import io.r2dbc.spi.Statement;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Names the sessions holding a busy lock over R2DBC with the JDBC diagnosis's
 * {@code pg_locks} statement: on the caller's connection while its transaction is usable,
 * or on one of its own after a timeout aborted it (where the caller's own session may be
 * listed, if it took some keys). A diagnosis that fails or runs out of time says so in
 * the error, never failing the call.
 *
 * @author advisory-lock authors
 */
final class R2dbcHolderDiagnosis {

	private static final String HOLDERS = LockSql.numbered(PgLocksSql.HOLDERS);

	/** The bound on a diagnosis, connect included. */
	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	private R2dbcHolderDiagnosis() {
	}

	/** Ask on the caller's connection, whose transaction can still run statements. */
	static Mono<Diagnosis> onConnection(Connection connection, List<Long> keys, LockMode mode) {
		return diagnose(query(connection, keys, mode));
	}

	/** Ask on a connection of its own, after a timeout aborted the caller's. */
	static Mono<Diagnosis> afterTimeout(ConnectionFactory driver, List<Long> keys, LockMode mode) {
		return diagnose(Mono.usingWhen(Mono.from(driver.create()), (connection) -> query(connection, keys, mode),
				R2dbcDriverConnections::close, (connection, ex) -> R2dbcDriverConnections.close(connection),
				R2dbcDriverConnections::close));
	}

	private static Mono<Diagnosis> diagnose(Mono<List<LockHolderInfo>> holders) {
		return holders.timeout(TIMEOUT)
			.map(Diagnosis::of)
			.onErrorResume((ex) -> Mono.just(Diagnosis.notDiagnosed("the query failed (" + ex + ")",
					(ex instanceof Exception exception) ? exception : null)));
	}

	private static Mono<List<LockHolderInfo>> query(Connection connection, List<Long> keys, LockMode mode) {
		return Mono.defer(() -> {
			Statement statement = connection.createStatement(HOLDERS)
				.bind(0, keys.toArray(Long[]::new))
				.bindNull(1, Integer.class)
				.bind(2, mode == LockMode.SHARED)
				.bind(3, PgLocksSql.MAX_HOLDERS);
			return Flux.from(statement.execute())
				.concatMap((result) -> result.map((row, metadata) -> holder(row)))
				.collectList();
		});
	}

	private static LockHolderInfo holder(Row row) {
		Long age = row.get("transaction_age_ms", Long.class);
		Integer pid = row.get("pid", Integer.class);
		Long key = row.get("key", Long.class);
		return new LockHolderInfo((pid != null) ? pid : 0, (key != null) ? key : 0,
				String.valueOf(row.get("mode", String.class)), row.get("application_name", String.class),
				row.get("state", String.class), (age != null) ? Duration.ofMillis(age) : null,
				row.get("wait_event_type", String.class), row.get("wait_event", String.class));
	}

}
