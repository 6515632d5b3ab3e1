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

import java.util.Map;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The application's {@link DataSource} beans as the auto-configurations see them: by bean
 * name, the default candidates only (so not an
 * {@link InvocationLockDataSource @InvocationLockDataSource} declared with
 * {@code defaultCandidate = false}), and the default one among them.
 *
 * @author advisory-lock authors
 */
final class DataSourceBeans {

	private DataSourceBeans() {
	}

	/**
	 * Return the name of the default bean of a type ({@code DataSource} or R2DBC's
	 * {@code ConnectionFactory}): the primary one, or the only one.
	 * @param <T> the type of the beans
	 * @param beans the beans by bean name, as Spring injects a {@code Map}
	 * @param provider the provider of the bean, which knows which one is primary
	 * @return the bean name, or {@code null} when there are several and none is primary
	 */
	static <T> @Nullable String defaultName(Map<String, T> beans, ObjectProvider<T> provider) {
		T unique = provider.getIfUnique();
		if (unique == null) {
			return null;
		}
		// Identity, not equals: a wrapper may delegate equals to what it wraps.
		for (Map.Entry<String, T> entry : beans.entrySet()) {
			if (entry.getValue() == unique) {
				return entry.getKey();
			}
		}
		return null;
	}

}
