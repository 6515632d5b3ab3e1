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
 * Registered by {@code @ImportRuntimeHints} on the auto-configurations, so the hints
 * apply when they do. What Spring registers itself, and what the application must, is in
 * docs/aot.md.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockRuntimeHints implements RuntimeHintsRegistrar {

	/** Looked up by {@code ClassUtils.isPresent} in {@code HikariPools}. */
	static final String HIKARI_DATA_SOURCE = "com.zaxxer.hikari.HikariDataSource";

	/** Copied field by field, by reflection, by {@code HikariDataSource.copyStateTo}. */
	static final String HIKARI_CONFIG = "com.zaxxer.hikari.HikariConfig";

	/** Looked up by {@code ClassUtils.isPresent} in {@code PgLocksHolderDiagnosis}. */
	static final String PG_CONNECTION = "org.postgresql.PGConnection";

	/** The root object of key expressions, whose getters SpEL calls by reflection. */
	static final String KEY_ROOT_OBJECT = "io.github.advisorylock.interceptor.LockKeyExpressionEvaluator$LockKeyRootObject";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		// A native image answers ClassUtils.isPresent only for a registered type: without
		// these, the derived pool and the direct connections would be silently off, and
		// the diagnosis would say PgJDBC is missing. The type alone is enough.
		hints.reflection().registerTypeIfPresent(classLoader, HIKARI_DATA_SOURCE);
		hints.reflection().registerTypeIfPresent(classLoader, PG_CONNECTION);
		// copyStateTo walks getDeclaredFields, which in a native image lists no field
		// left unregistered: the derived pool would silently lack the URL or credentials.
		// Every declared field, in case a HikariCP release copies others; one by one, as
		// the member category for fields differs in Spring Framework 7.
		if (ClassUtils.isPresent(HIKARI_CONFIG, classLoader)) {
			for (Field field : ClassUtils.resolveClassName(HIKARI_CONFIG, classLoader).getDeclaredFields()) {
				hints.reflection().registerField(field);
			}
		}
		// The startup checks (LockPrerequisite) look for these by name too: unregistered,
		// they would fail the start of an application that has them.
		hints.reflection().registerTypeIfPresent(classLoader, LockPrerequisite.DRIVER_CLASS);
		hints.reflection().registerTypeIfPresent(classLoader, LockPrerequisite.SPRING_JDBC_CLASS);
		hints.reflection().registerTypeIfPresent(classLoader, LockPrerequisite.TRANSACTION_MANAGER_CLASS);
		// For #root.method, .args and .target; by name: the type is package-private.
		hints.reflection().registerType(TypeReference.of(KEY_ROOT_OBJECT), MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
