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

package io.github.advisorylock.pglocks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.core.sql.PgLocksSql;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.LockActivity;
import io.github.advisorylock.pglocks.AdvisoryLockInspector.Snapshot;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.Row;
import io.r2dbc.spi.Wrapped;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.r2dbc.connection.ConnectionFactoryUtils;
import org.springframework.util.Assert;

/**
 * Reads every advisory lock of the current database over R2DBC, held and awaited, with
 * what its session is doing: the {@code advisorylocks} endpoint's data in an application
 * without a JDBC {@code DataSource}, the same statement and rows as
 * {@link AdvisoryLockInspector}'s.
 *
 * <p>
 * Each read opens a connection of its own from the driver under the application's pool,
 * which is often exhausted when locks pile up. Reads run one at a time: one asked for
 * while another runs, or that outlives its timeout, fails with a
 * {@link TransientDataAccessResourceException} rather than wait, since waiting would hold
 * a subscriber for nothing a retry does not give.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class R2dbcAdvisoryLockInspector {

	private static final String TASK = "Read advisory locks from pg_locks";

	private static final String ALL_LOCKS = LockSql.numbered(PgLocksSql.ALL_LOCKS);

	private final ConnectionFactory driver;

	private final Duration timeout;

	private final boolean includeQuery;

	private final AtomicBoolean reading = new AtomicBoolean();

	/**
	 * Create an inspector of the database of an R2DBC connection factory.
	 * @param connectionFactory the application's connection factory; reads use the
	 * driver's under it
	 * @param timeout the bound on one read, connecting included
	 * @param includeQuery whether to read each session's query text, which may hold
	 * personal data
	 */
	public R2dbcAdvisoryLockInspector(ConnectionFactory connectionFactory, Duration timeout, boolean includeQuery) {
		Assert.notNull(connectionFactory, "ConnectionFactory must not be null");
		Assert.isTrue(timeout != null && !timeout.isNegative() && !timeout.isZero(), "Timeout must be positive");
		this.driver = driver(connectionFactory);
		this.timeout = timeout;
		this.includeQuery = includeQuery;
	}

	/**
	 * Read the advisory locks of the current database, grouped by key, holders before
	 * waiters.
	 * @return the locks, at most {@link AdvisoryLockInspector#MAX_LOCKS}, and whether
	 * there were more; or a {@link TransientDataAccessResourceException} when another
	 * read runs or this one ran out of time
	 */
	public Mono<Snapshot> locks() {
		return Mono.defer(() -> {
			if (!this.reading.compareAndSet(false, true)) {
				return Mono.error(new TransientDataAccessResourceException(
						TASK + ": another read of the advisory locks is running; try again"));
			}
			return Mono
				.usingWhen(Mono.from(this.driver.create()), this::read, Connection::close,
						(connection, ex) -> connection.close(), Connection::close)
				.timeout(this.timeout,
						Mono.error(() -> new TransientDataAccessResourceException(
								TASK + ": no answer within " + this.timeout.toMillis() + " ms; try again")))
				.onErrorMap(R2dbcException.class,
						(ex) -> ConnectionFactoryUtils.convertR2dbcException(TASK, ALL_LOCKS, ex))
				.doFinally((signal) -> this.reading.set(false));
		});
	}

	/** The driver under the pool, so that a read never waits for a pooled connection. */
	private static ConnectionFactory driver(ConnectionFactory factory) {
		Object each = factory;
		while (each instanceof Wrapped<?> wrapped && wrapped.unwrap() instanceof ConnectionFactory inner) {
			each = inner;
		}
		return (ConnectionFactory) each;
	}

	private Mono<Snapshot> read(Connection connection) {
		// One more row than shown, to tell a full table from a cut one.
		return Flux
			.from(connection.createStatement(ALL_LOCKS)
				.bind(0, this.includeQuery)
				.bind(1, AdvisoryLockInspector.MAX_LOCKS + 1)
				.execute())
			.concatMap((result) -> result.map((row, metadata) -> activity(row)))
			.collectList()
			.map((locks) -> (locks.size() > AdvisoryLockInspector.MAX_LOCKS)
					? new Snapshot(List.copyOf(locks.subList(0, AdvisoryLockInspector.MAX_LOCKS)), true)
					: new Snapshot(locks, false));
	}

	private static LockActivity activity(Row row) {
		Long key = null;
		List<Integer> keyPair = null;
		if (Integer.valueOf(1).equals(row.get("objsubid", Integer.class))) {
			key = row.get("key", Long.class);
		}
		else {
			// Two-int form: each int sits in an unsigned oid; narrowing restores the
			// sign.
			keyPair = List.of(narrowed(row.get("classid", Long.class)), narrowed(row.get("objid", Long.class)));
		}
		Integer pid = row.get("pid", Integer.class);
		Long age = row.get("transaction_age_ms", Long.class);
		return new LockActivity((pid != null) ? pid : 0, key, keyPair, String.valueOf(row.get("mode", String.class)),
				Boolean.TRUE.equals(row.get("granted", Boolean.class)), row.get("waitstart", Instant.class),
				(age != null) ? Duration.ofMillis(age) : null, row.get("state", String.class),
				row.get("application_name", String.class), row.get("wait_event_type", String.class),
				row.get("wait_event", String.class), row.get("query", String.class));
	}

	private static int narrowed(@Nullable Long oid) {
		return (oid != null) ? oid.intValue() : 0;
	}

}
