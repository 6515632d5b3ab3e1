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
import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.github.advisorylock.LockAcquisitionListener;
import io.github.advisorylock.LockKeyStrategy;
import io.github.advisorylock.LockRequest;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import io.github.advisorylock.ReactiveLockCallback;
import io.github.advisorylock.WaitMode;
import io.github.advisorylock.core.ExclusionProof;
import io.github.advisorylock.core.LockKeys;
import io.github.advisorylock.core.LockLifecycle;
import io.github.advisorylock.core.LockSettings;
import io.github.advisorylock.core.session.ReactiveHeldLocks;
import io.r2dbc.spi.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.util.Assert;

/**
 * The R2DBC implementation of {@link ReactiveAdvisoryLockOperations}: takes
 * transaction-level advisory locks on the connection that Spring's
 * {@code R2dbcTransactionManager} bound to the subscriber's reactive transaction. The
 * twin of {@code AdvisoryLockTemplate}, built from the application's
 * {@link ConnectionFactory} beans and the same {@code advisory-lock.*} properties.
 *
 * <pre class="code">
 * R2dbcAdvisoryLockTemplate locks = new R2dbcAdvisoryLockTemplate(connectionFactory);
 * Mono&lt;Void&gt; work = locks.lock("setup_request", userId)
 *     .then(insertTheRequest(userId))
 *     .as(transactionalOperator::transactional);
 * </pre>
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class R2dbcAdvisoryLockTemplate implements ReactiveAdvisoryLockOperations, AutoCloseable {

	/** The timeout of a {@code BLOCK} that gives none, as on the JDBC path. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	/** The most keys one call may take, unless set otherwise, as on the JDBC path. */
	public static final int DEFAULT_MAX_KEYS = 64;

	/** The bean name the single-factory constructor gives its connection factory. */
	public static final String DEFAULT_CONNECTION_FACTORY_NAME = "connectionFactory";

	/** Read once per call, at its subscription. */
	private volatile LockSettings settings = LockSettings.of(DEFAULT_TIMEOUT);

	private final LockLifecycle lifecycle = new LockLifecycle();

	private final R2dbcAcquisitionSupport support = new R2dbcAcquisitionSupport(this.lifecycle);

	private final R2dbcConnectionFactories connectionFactories;

	private final R2dbcTransactionLockExecutor transactionLocks;

	private final R2dbcInvocationLockExecutor invocationLocks;

	/**
	 * Create a template that takes its locks on one connection factory's transactions.
	 * @param connectionFactory the connection factory that Spring's
	 * {@code R2dbcTransactionManager} manages
	 */
	public R2dbcAdvisoryLockTemplate(ConnectionFactory connectionFactory) {
		// Not Map.of: a null one is refused by the check that names it.
		this(Collections.singletonMap(DEFAULT_CONNECTION_FACTORY_NAME, connectionFactory),
				DEFAULT_CONNECTION_FACTORY_NAME);
	}

	/**
	 * Create a template for several connection factories, each a request may name by its
	 * bean name.
	 * @param connectionFactories the connection factories by bean name
	 * @param defaultConnectionFactory the name of the one {@code isHeld} looks at when a
	 * request names none, or {@code null}
	 */
	public R2dbcAdvisoryLockTemplate(Map<String, ConnectionFactory> connectionFactories,
			@Nullable String defaultConnectionFactory) {
		Assert.notNull(connectionFactories, "ConnectionFactories must not be null");
		R2dbcConnectionFactories factories = new R2dbcConnectionFactories(connectionFactories,
				defaultConnectionFactory);
		this.connectionFactories = factories;
		this.transactionLocks = new R2dbcTransactionLockExecutor(factories, this.support, this.lifecycle);
		this.invocationLocks = new R2dbcInvocationLockExecutor(this.support, this.lifecycle,
				new R2dbcLockSessions(factories, this.support));
	}

	/** Set how key values become keys; {@link LockKeyStrategy#standard()} by default. */
	public void setKeyStrategy(LockKeyStrategy keyStrategy) {
		this.settings = this.settings.withKeyStrategy(keyStrategy);
	}

	/**
	 * Set the timeout of a {@code BLOCK} that gives none.
	 * @param defaultTimeout the timeout, positive
	 */
	public void setDefaultTimeout(Duration defaultTimeout) {
		LockRequest.checkTimeout(defaultTimeout, "advisory-lock.default-timeout");
		this.settings = this.settings.withDefaultTimeout(defaultTimeout);
	}

	/**
	 * Set the most keys one call may take.
	 * @param maxKeys the bound, positive
	 */
	public void setMaxKeys(int maxKeys) {
		this.settings = this.settings.withMaxKeys(maxKeys);
	}

	/**
	 * Set whether a busy error names the sessions holding the lock, read from
	 * {@code pg_locks} on the failure path only ({@code advisory-lock.diagnosis.enabled},
	 * on by default).
	 * @param holderDiagnosis whether to ask
	 */
	public void setHolderDiagnosis(boolean holderDiagnosis) {
		this.support.setHolderDiagnosis(holderDiagnosis);
	}

	/**
	 * Set the listeners told of each acquisition.
	 */
	public void setListeners(List<LockAcquisitionListener> listeners) {
		Assert.noNullElements(listeners, "Listeners must not be null");
		this.settings = this.settings.withListeners(listeners);
	}

	/**
	 * Set how often an invocation-scoped lock's session is kept alive; three of them make
	 * the dead-man switch after which PostgreSQL ends a silent holder's session.
	 * @param heartbeat the heartbeat, between 100ms and 1h
	 */
	public void setHeartbeat(Duration heartbeat) {
		this.invocationLocks.setHeartbeat(heartbeat);
	}

	/**
	 * Set the most invocation-scoped locks held at once, each on a connection of its own.
	 * @param maxInvocationConnections the bound, positive
	 */
	public void setMaxInvocationConnections(int maxInvocationConnections) {
		this.invocationLocks.setMaxConnections(maxInvocationConnections);
	}

	/**
	 * Prove, as the auto-configuration does at startup, that the locks of each of this
	 * template's connection factories exclude: a connection of it is refused a random key
	 * that another connection of it holds. Each check is bounded by the timeout; one that
	 * cannot be made within it (the database down, a pool of one) is logged at
	 * {@code WARN}, and passes (docs/poolers.md, "The startup check").
	 * @param timeout the bound of each check, positive
	 * @return a {@code Mono} that completes once every check passed, or signals an
	 * {@link IllegalStateException} if the locks of a factory exclude nobody, its server
	 * refuses the advisory lock functions, or a connection of it is given a standby,
	 * where every lock is refused; naming it, what was seen and the known causes
	 * @since 0.1.0
	 */
	public Mono<Void> checkExclusion(Duration timeout) {
		Assert.isTrue(timeout.compareTo(Duration.ZERO) > 0, "Timeout of the exclusion check must be positive");
		return R2dbcExclusionProof.check(this.connectionFactories, timeout).doOnNext(ExclusionProof::report).then();
	}

	/**
	 * Set the name of this process in each lock session's {@code application_name}.
	 * @param instanceName the name; the JVM's {@code pid@host} by default
	 */
	public void setInstanceName(String instanceName) {
		Assert.hasText(instanceName, "Instance name must not be blank");
		this.invocationLocks.setInstanceName(instanceName);
	}

	/**
	 * Close the template, as the application shuts down: no lock is taken any more, a
	 * wait in progress is cancelled on the server, and a lock granted meanwhile does not
	 * subscribe its work; each signals a
	 * {@link org.springframework.dao.CannotAcquireLockException} that is not a
	 * {@link io.github.advisorylock.LockBusyException}: nobody else need hold the lock.
	 * Spring Boot calls it after the web server's graceful shutdown, before the
	 * connection pools close.
	 */
	@Override
	public void close() {
		this.lifecycle.close();
	}

	@Override
	public Mono<Void> lock(String namespace, @Nullable Object... keys) {
		return Mono.defer(() -> lock(LockRequest.of(namespace, keys)));
	}

	@Override
	public Mono<Boolean> tryLock(String namespace, @Nullable Object... keys) {
		return Mono.defer(() -> {
			LockRequest request = LockRequest.of(namespace, keys).withWaitMode(WaitMode.TRY);
			LockSettings settings = this.settings;
			return this.transactionLocks.acquire(request, LockKeys.resolve(request, settings), settings, false);
		});
	}

	@Override
	public Mono<Void> lock(LockRequest request) {
		return Mono.defer(() -> {
			Assert.isTrue(request.scope() == LockScope.TRANSACTION, () -> "lock(LockRequest) takes "
					+ "transaction-scoped locks; run the work of an invocation-scoped lock with execute(request, "
					+ "callback)");
			Assert.isTrue(request.waitMode() != WaitMode.SKIP, () -> "WaitMode.SKIP skips work, and "
					+ "lock(LockRequest) has none: use execute(request, callback), or tryLock");
			LockSettings settings = this.settings;
			return this.transactionLocks.acquire(request, LockKeys.resolve(request, settings), settings, true).then();
		});
	}

	@Override
	public <T> Flux<T> execute(LockRequest request, ReactiveLockCallback<T> callback) {
		return Flux.defer(() -> {
			Assert.notNull(callback, "ReactiveLockCallback must not be null");
			this.lifecycle.checkOpen(request);
			LockSettings settings = this.settings;
			LockKeys keys = LockKeys.resolve(request, settings);
			if (request.scope() == LockScope.INVOCATION) {
				return this.invocationLocks.execute(request, keys, settings, callback);
			}
			return this.transactionLocks.execute(request, keys, settings, callback);
		});
	}

	@Override
	public <T> Mono<T> locked(LockRequest request, Mono<T> mono) {
		return execute(request, (handle) -> mono).singleOrEmpty();
	}

	@Override
	public <T> Flux<T> locked(LockRequest request, Flux<T> flux) {
		return execute(request, (handle) -> flux);
	}

	@Override
	public Mono<Boolean> isHeld(String namespace, @Nullable Object... keys) {
		return Mono.defer(() -> {
			LockRequest request = LockRequest.of(namespace, keys);
			return this.transactionLocks.holds(request, LockKeys.resolve(request, this.settings));
		});
	}

	@Override
	public Mono<Void> checkHeld() {
		return ReactiveHeldLocks.checkHeld();
	}

	@Override
	public Mono<Long> fencingToken() {
		return ReactiveHeldLocks.fencingToken();
	}

}
