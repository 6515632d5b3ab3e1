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

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Serialize the annotated method on a PostgreSQL transaction-level advisory lock taken
 * inside the current Spring transaction.
 *
 * <p>
 * Typical use guards a "check, then write" rule that no constraint can express:
 *
 * <pre class="code">
 * &#64;Transactional
 * &#64;AdvisoryLocked(namespace = "setup_request", key = "#userId")
 * public UUID createSetup(UUID userId) {
 *     // count the user's pending requests, then insert one
 * }
 * </pre>
 *
 * <p>
 * Before the method body runs, the lock is taken with {@code pg_advisory_xact_lock} (or
 * its {@code _shared} and {@code try} variants) on the connection of the current
 * transaction; PostgreSQL releases it at COMMIT or ROLLBACK. The call fails with
 * {@link LockTransactionException} when there is no actual transaction or when its
 * isolation is above READ COMMITTED, with {@link LockBusyException} when the lock cannot
 * be had in time, and with {@link InvalidLockKeyException} when a key expression gives no
 * usable value. In every failure the method body does not run.
 *
 * <p>
 * Calls through the Spring proxy are intercepted; a call from the same object
 * ({@code this.method()}) is not. The annotation is checked at startup: a blank or
 * overlong namespace, an unparsable key expression, a bad timeout, a private, final or
 * static method, a second {@code @AdvisoryLocked} on the same method (through a composed
 * annotation), or a return type whose work outlives the call ({@code CompletionStage},
 * {@code Future} without {@code @Async}, a reactive {@code Publisher}, a Kotlin
 * {@code suspend} function) fails the application context, naming the method.
 * {@link AdvisoryLockOperations#assertHeld} lets a method prove at run time that it was
 * reached through the proxy.
 *
 * <p>
 * With {@code scope = LockScope.INVOCATION} the lock lasts as long as the call instead,
 * across any number of transactions, for scheduled and long-running work that must run on
 * one instance at a time; with {@code waitMode = WaitMode.SKIP} a call that finds the
 * lock held returns without running the body:
 *
 * <pre class="code">
 * &#64;Scheduled(fixedDelay = 5_000)
 * &#64;AdvisoryLocked(namespace = "job", key = "'expire-stale-requests'", scope = LockScope.INVOCATION,
 *         waitMode = WaitMode.SKIP)
 * public void expireStaleRequests() { ... }
 * </pre>
 *
 * <p>
 * Inside such a call, a transaction-scoped {@code @AdvisoryLocked} method on the same
 * thread, or in a task its {@link LockHandle#wrap(Runnable) handle wraps}, for a key the
 * call holds is a fenced write: its transaction takes the key's fence lock and checks
 * that the enclosing lock is still held before the body runs, throwing
 * {@link LockLostException} if not, so that its writes cannot land after those of the
 * next holder (see {@code docs/scheduled-work.md}).
 *
 * <p>
 * The annotation can be used as a meta-annotation to compose a project-specific one.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see AdvisoryLockOperations
 * @see AdvisoryLockKeys
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
// As on @Transactional: Spring's AOT processing registers every annotated method of a
// bean for reflection, which a native image needs to find the annotation and the
// parameter names of key expressions at startup, and to call the method from its proxy.
@Reflective
public @interface AdvisoryLocked {

	/**
	 * Return the namespace that scopes the keys, for example {@code "setup_request"} or
	 * {@code "withdrawal"}. Required and non-blank: the 64-bit key is derived from
	 * {@code namespace + ":" + value}.
	 * @return the namespace
	 */
	String namespace();

	/**
	 * Return the SpEL expressions that name the locked resources. Each expression is
	 * evaluated against the method arguments ({@code #userId}, {@code #p0}, {@code #a0},
	 * {@code #cmd.userId()}) and may reference beans ({@code @bean.method()}); it may
	 * give one value or a {@link java.util.Collection} or array of values. All keys of
	 * one call are deduplicated and locked in ascending order of their 64-bit value, so
	 * calls naming the same resources in another order cannot deadlock.
	 * @return the key expressions; at least one
	 */
	String[] key();

	/**
	 * Return whether the lock is exclusive (the default) or shared with other
	 * {@link LockMode#SHARED} holders.
	 * @return the lock mode
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * Return whether to wait for the lock up to the timeout ({@link WaitMode#BLOCK}, the
	 * default), fail at once when it is held ({@link WaitMode#TRY}), or return without
	 * running the body when it is held ({@link WaitMode#SKIP}; only for methods returning
	 * {@code void} or {@link java.util.Optional}).
	 * @return the wait mode
	 */
	WaitMode waitMode() default WaitMode.BLOCK;

	/**
	 * Return how long {@link WaitMode#BLOCK} may wait for the lock, as a duration such as
	 * {@code "200ms"}, {@code "2s"} or {@code "PT2S"}; {@code ${...}} placeholders are
	 * resolved. Empty (the default) means the {@code advisory-lock.default-timeout}
	 * property. The timeout bounds the acquisition only; later statements of the
	 * transaction keep their own {@code lock_timeout}. Must be empty for
	 * {@link WaitMode#TRY} and {@link WaitMode#SKIP}.
	 * @return the acquisition timeout, or empty for the default
	 */
	String timeout() default "";

	/**
	 * Return how long the lock lasts: as long as the caller's transaction
	 * ({@link LockScope#TRANSACTION}, the default), or as long as the call
	 * ({@link LockScope#INVOCATION}), held outside any transaction of the method and
	 * inside an {@code @Async} hop.
	 * @return the scope
	 */
	LockScope scope() default LockScope.TRANSACTION;

	/**
	 * Return the bean name of the {@code DataSource} to lock on. Empty (the default)
	 * means the one whose connection is bound to the current transaction, which is the
	 * only one in an application with a single {@code DataSource}; for
	 * {@link LockScope#INVOCATION}, the default {@code DataSource} (the primary one).
	 * Name one where transactions of several {@code DataSource}s are bound at once (a
	 * transaction of one manager inside another's), which otherwise fails with
	 * {@link LockTransactionException} naming them, or to hold an invocation-scoped lock
	 * on another than the default. A name that is no {@code DataSource} bean fails the
	 * call, naming the known ones. On a method returning {@code Mono} or {@code Flux} (or
	 * a Kotlin {@code suspend} function or {@code Flow}), it names an R2DBC
	 * {@code ConnectionFactory} bean instead.
	 * @return the bean name, or empty for the one of the current transaction
	 */
	String dataSource() default "";

	/**
	 * Return how many calls may hold the lock at once, across every instance of the
	 * application: 1 (the default) is a plain lock; more makes it a concurrency limit,
	 * each call holding one of that many permits of the namespace and key value until its
	 * transaction ends, and waiting ({@link WaitMode#BLOCK}), failing ({@code TRY}) or
	 * skipping ({@code SKIP}) when all are held. At most {@link LockRequest#MAX_PERMITS}.
	 * A limit has one key value and is {@link LockMode#EXCLUSIVE}; a plain lock on the
	 * same namespace and value takes one of its permits. Either scope, on both stacks.
	 * @return the number of permits
	 * @see LockRequest#withPermits(int)
	 */
	int permits() default 1;

	/**
	 * Return the number of permits as text, for a {@code ${...}} placeholder such as
	 * {@code "${app.export.permits}"} or a {@code #{...}} expression, resolved at startup
	 * and read as Spring's {@code @ConcurrencyLimit(limitString)} is: a whole number with
	 * nothing around it. It replaces {@link #permits()}, which must then be left at 1.
	 * Empty (the default) or blank, or resolved to blank, means {@link #permits()}.
	 * @return the number of permits, or empty
	 */
	String permitsString() default "";

}
