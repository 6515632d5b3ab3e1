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
 * <pre class="code">
 * &#64;Transactional
 * &#64;AdvisoryLocked(namespace = "setup_request", key = "#userId")
 * public UUID createSetup(UUID userId) {
 *     // count the user's pending requests, then insert one
 * }
 * </pre>
 *
 * <p>
 * Before the body runs, the lock is taken with {@code pg_advisory_xact_lock} (or its
 * {@code _shared} and {@code try} variants) on the transaction's connection; PostgreSQL
 * releases it at COMMIT or ROLLBACK. The body does not run if the call fails: with
 * {@link LockTransactionException} when there is no actual transaction or its isolation
 * is above READ COMMITTED, with {@link LockBusyException} when the lock cannot be had in
 * time, with {@link InvalidLockKeyException} when a key expression gives no usable value.
 *
 * <p>
 * Only calls through the Spring proxy are intercepted, not {@code this.method()} (see
 * {@link AdvisoryLockOperations#assertHeld}). A misuse, such as a private method or a
 * return type whose work outlives the call, fails the application context at startup,
 * naming the method (docs/failures.md, "At startup").
 *
 * <p>
 * With {@link LockScope#INVOCATION} the lock lasts as long as the call, across its
 * transactions, for scheduled and long-running work (docs/scheduled-work.md); a
 * transaction-scoped lock inside it for a key it holds is a fenced write (see
 * {@link AdvisoryLockOperations#lock(LockRequest)}). The annotation also works as a
 * meta-annotation.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 * @see AdvisoryLockOperations
 * @see AdvisoryLockKeys
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
// As on @Transactional: AOT registers annotated methods for reflection, which a native
// image needs to read the annotation and key parameter names, and to call the method.
@Reflective
public @interface AdvisoryLocked {

	/**
	 * Return the namespace that scopes the keys, for example {@code "setup_request"}.
	 * Required; its limits are those of {@link LockRequest#namespace()}.
	 * @return the namespace
	 */
	String namespace();

	/**
	 * Return the SpEL expressions that name the locked resources, evaluated against the
	 * method arguments ({@code #userId}, {@code #p0}, {@code #cmd.userId()}) and beans
	 * ({@code @bean.method()}). Each gives one value or a {@link java.util.Collection} or
	 * array of values; the keys are taken as {@link AdvisoryLockOperations} describes, in
	 * an order that cannot deadlock.
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
	 * Return what to do when the lock is held (see {@link WaitMode});
	 * {@link WaitMode#SKIP} only for methods returning {@code void} or
	 * {@link java.util.Optional}.
	 * @return the wait mode
	 */
	WaitMode waitMode() default WaitMode.BLOCK;

	/**
	 * Return how long {@link WaitMode#BLOCK} may wait for the lock, as a duration such as
	 * {@code "200ms"} or {@code "PT2S"}, {@code ${...}} placeholders resolved. Empty (the
	 * default) means {@code advisory-lock.default-timeout}. It bounds the acquisition
	 * only: later statements keep their own {@code lock_timeout}. Must be empty for
	 * {@link WaitMode#TRY} and {@link WaitMode#SKIP}.
	 * @return the acquisition timeout, or empty for the default
	 */
	String timeout() default "";

	/**
	 * Return how long the lock lasts: the caller's transaction (the default), or the
	 * call, inside an {@code @Async} hop too (see {@link LockScope}).
	 * @return the scope
	 */
	LockScope scope() default LockScope.TRANSACTION;

	/**
	 * Return the bean name of the {@code DataSource} to lock on, as
	 * {@link LockRequest#withDataSource(String)} describes; on a method returning
	 * {@code Mono} or {@code Flux} (or a Kotlin {@code suspend} function or
	 * {@code Flow}), of an R2DBC {@code ConnectionFactory}. Empty (the default) means the
	 * one of the current transaction, or for {@link LockScope#INVOCATION} the primary
	 * one.
	 * @return the bean name, or empty for the one of the current transaction
	 */
	String dataSource() default "";

	/**
	 * Return how many calls may hold the lock at once, across every instance: 1 (the
	 * default) is a plain lock, more a concurrency limit (see
	 * {@link LockRequest#withPermits(int)}).
	 * @return the number of permits
	 * @see LockRequest#withPermits(int)
	 */
	int permits() default 1;

	/**
	 * Return the number of permits as text, for a {@code ${...}} placeholder or a
	 * {@code #{...}} expression, resolved at startup and read as Spring's
	 * {@code @ConcurrencyLimit(limitString)} is: a whole number with nothing around it.
	 * It replaces {@link #permits()}, which must then be left at 1. Empty or blank (also
	 * once resolved) means {@link #permits()}.
	 * @return the number of permits, or empty
	 */
	String permitsString() default "";

}
