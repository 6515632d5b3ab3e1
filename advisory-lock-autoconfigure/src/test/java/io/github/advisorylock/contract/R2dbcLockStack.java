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
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockResult;
import io.github.advisorylock.core.sql.LockSql;
import io.github.advisorylock.r2dbc.R2dbcAdvisoryLockTemplate;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.r2dbc.spi.R2dbcException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.r2dbc.core.DatabaseClient.GenericExecuteSpec;
import org.springframework.transaction.ReactiveTransaction;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * The R2DBC stack: {@link R2dbcAdvisoryLockTemplate} in the reactive transactions of a
 * {@link TransactionalOperator}. A transaction is begun by subscribing to the operator
 * with a publisher that completes only when the steps return; each step subscribes its
 * operation in the Reactor context the transaction runs in, so that it joins that
 * transaction as an operator the application wrote inline would, and waits for it on the
 * calling thread (the test's, never the driver's event loop). Invocation-scoped work runs
 * on Reactor's bounded elastic scheduler, where it may block.
 */
final class R2dbcLockStack implements LockStack {

	private static final Duration HANG = PgLocks.HANG_TIMEOUT;

	private final R2dbcAdvisoryLockTemplate locks;

	private final TransactionalOperator transaction;

	private final DatabaseClient database;

	R2dbcLockStack(R2dbcAdvisoryLockTemplate locks, TransactionalOperator transaction, DatabaseClient database) {
		this.locks = locks;
		this.transaction = transaction;
		this.database = database;
	}

	@Override
	public <T> T inTransaction(TransactionSteps<T> steps) {
		Sinks.One<ContextView> begun = Sinks.one();
		Sinks.Empty<Void> stepsDone = Sinks.empty();
		AtomicReference<ReactiveTransaction> status = new AtomicReference<>();
		Mono<Void> completed = this.transaction.execute((transaction) -> Mono.deferContextual((context) -> {
			status.set(transaction);
			begun.tryEmitValue(context);
			return stepsDone.asMono();
		})).then().cache();
		completed.subscribe(null, (ex) -> {
		});
		ContextView context = begun.asMono().block(HANG);
		T result;
		try {
			result = steps.run(new R2dbcTransaction(context, status.get()));
		}
		catch (RuntimeException | Error ex) {
			// Rolled back; the steps' own failure is the one to report.
			stepsDone.tryEmitError(ex);
			completed.onErrorResume((rollback) -> Mono.empty()).block(HANG);
			throw ex;
		}
		stepsDone.tryEmitEmpty();
		completed.block(HANG);
		return result;
	}

	@Override
	public <T> LockResult<T> execute(LockRequest request, Supplier<T> work) {
		AtomicBoolean ran = new AtomicBoolean();
		List<T> values = this.locks.execute(request, (handle) -> Mono.fromCallable(() -> {
			ran.set(true);
			return work.get();
		}).subscribeOn(Schedulers.boundedElastic())).collectList().block(HANG);
		return result(ran.get(), values);
	}

	/**
	 * The reactive template skips by completing empty, without subscribing the work.
	 */
	private static <T> LockResult<T> result(boolean ran, List<T> values) {
		return ran ? LockResult.executed((values == null || values.isEmpty()) ? null : values.get(0))
				: LockResult.skipped();
	}

	@Override
	public void listen(LockAcquisitionListener listener) {
		this.locks.setListeners(List.of(listener));
	}

	@Override
	public DataSource holders() {
		return TestDatabase.get().dataSource();
	}

	@Override
	public String sqlState(Throwable driverException) {
		return ((R2dbcException) driverException).getSqlState();
	}

	private final class R2dbcTransaction implements Transaction {

		private final ContextView context;

		private final ReactiveTransaction status;

		R2dbcTransaction(ContextView context, ReactiveTransaction status) {
			this.context = context;
			this.status = status;
		}

		private <T> T await(Mono<T> step) {
			return step.contextWrite(this.context).block(HANG);
		}

		@Override
		public void lock(LockRequest request) {
			await(R2dbcLockStack.this.locks.lock(request));
		}

		@Override
		public boolean tryLock(String namespace, Object... keys) {
			return Boolean.TRUE.equals(await(R2dbcLockStack.this.locks.tryLock(namespace, keys)));
		}

		@Override
		public <T> LockResult<T> execute(LockRequest request, Supplier<T> work) {
			AtomicBoolean ran = new AtomicBoolean();
			List<T> values = await(R2dbcLockStack.this.locks.execute(request, (handle) -> Mono.fromSupplier(() -> {
				ran.set(true);
				return work.get();
			})).collectList());
			return result(ran.get(), values);
		}

		@Override
		public int backendPid() {
			return queryForInt("SELECT pg_backend_pid()");
		}

		@Override
		public int queryForInt(String sql, Object... arguments) {
			Integer value = await(bind(sql, arguments).map((row) -> row.get(0, Integer.class)).one());
			return (value != null) ? value : 0;
		}

		@Override
		public void update(String sql, Object... arguments) {
			await(bind(sql, arguments).then());
		}

		@Override
		public void setRollbackOnly() {
			this.status.setRollbackOnly();
		}

		private GenericExecuteSpec bind(String sql, Object... arguments) {
			GenericExecuteSpec spec = R2dbcLockStack.this.database.sql(LockSql.numbered(sql));
			for (int i = 0; i < arguments.length; i++) {
				spec = spec.bind(i, arguments[i]);
			}
			return spec;
		}

	}

}
