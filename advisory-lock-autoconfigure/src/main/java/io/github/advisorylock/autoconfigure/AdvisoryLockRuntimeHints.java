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

package io.github.advisorylock.autoconfigure;

import java.lang.reflect.Field;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * The reflection a native image must keep for the library itself: what it looks up by
 * name or reflects on at runtime, and that Spring's own AOT processing cannot see.
 * Registered by {@code @ImportRuntimeHints} on the auto-configurations, as Spring Boot's
 * own auto-configurations do, so the hints apply when they do.
 *
 * <p>
 * Not here, because Spring registers them already: the methods annotated with
 * {@code @AdvisoryLocked} (the annotation is {@code @Reflective}), the proxy classes of
 * the annotated beans (generated at build time through
 * {@code AdvisoryLockBeanPostProcessor.determineBeanType}), the configuration properties,
 * and the response types of the {@code advisorylocks} endpoint (Spring Boot's
 * {@code @ReadOperation} processing registers them for Jackson). Types of the application
 * reached by its own key expressions are the application's to register (docs/aot.md).
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * Looked up by {@code ClassUtils.isPresent} in {@code HikariPools}.
	 */
	static final String HIKARI_DATA_SOURCE = "com.zaxxer.hikari.HikariDataSource";

	/**
	 * Its state is copied field by field, through reflection, by
	 * {@code HikariDataSource.copyStateTo}.
	 */
	static final String HIKARI_CONFIG = "com.zaxxer.hikari.HikariConfig";

	/** Looked up by {@code ClassUtils.isPresent} in {@code PgLocksHolderDiagnosis}. */
	static final String PG_CONNECTION = "org.postgresql.PGConnection";

	/**
	 * The root object of key expressions, whose getters SpEL calls through reflection.
	 */
	static final String KEY_ROOT_OBJECT = "io.github.advisorylock.interceptor.LockKeyExpressionEvaluator$LockKeyRootObject";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		// ClassUtils.isPresent is Class.forName, which a native image answers only for a
		// registered type; without these, the invocation-scoped locks' pool and the
		// direct connections to pg_locks would be silently off, and the holder diagnosis
		// would say that PgJDBC is missing. The type alone is enough: nothing of it is
		// reflected on through the check.
		hints.reflection().registerTypeIfPresent(classLoader, HIKARI_DATA_SOURCE);
		hints.reflection().registerTypeIfPresent(classLoader, PG_CONNECTION);
		// The pool of the invocation-scoped locks is derived from the application's
		// Hikari pool by copyStateTo, which walks HikariConfig's getDeclaredFields and
		// copies the non-final ones and the content of the final AtomicReference ones
		// (the credentials, from HikariCP 6 on). In a native image a field not registered
		// is not listed, so the derived pool would silently lack that setting (the URL,
		// the credentials). Every declared field, so that a HikariCP release that changes
		// which ones it copies is covered; field by field, because the member category
		// for them was renamed in Spring Framework 7.
		if (ClassUtils.isPresent(HIKARI_CONFIG, classLoader)) {
			for (Field field : ClassUtils.resolveClassName(HIKARI_CONFIG, classLoader).getDeclaredFields()) {
				hints.reflection().registerField(field);
			}
		}
		// The startup checks (LockPrerequisite) look for these by ClassUtils.isPresent
		// too: unregistered, a native image would answer that they are missing and fail
		// the start of an application that has them.
		hints.reflection().registerTypeIfPresent(classLoader, LockPrerequisite.DRIVER_CLASS);
		hints.reflection().registerTypeIfPresent(classLoader, LockPrerequisite.SPRING_JDBC_CLASS);
		hints.reflection().registerTypeIfPresent(classLoader, LockPrerequisite.TRANSACTION_MANAGER_CLASS);
		// #root.method, #root.args and #root.target in key expressions: SpEL finds and
		// calls the getters of the root object through reflection. By name: the type is
		// package-private in the interceptor package.
		hints.reflection().registerType(TypeReference.of(KEY_ROOT_OBJECT), MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
