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

/**
 * Strategy that maps a namespace and a key value to the 64-bit key of a PostgreSQL
 * advisory lock. A bean of this type replaces the {@link #standard()} one, for example to
 * share locks with a system that derives its keys differently; it must give the same key
 * for the same namespace and value, always and in every instance of the application.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockKeyStrategy {

	/**
	 * Derive the key of a value in a namespace.
	 * @param namespace the namespace, not blank
	 * @param value one key value, never a collection or an array
	 * @return the 64-bit key
	 * @throws InvalidLockKeyException if the value cannot be used as a key
	 */
	long key(String namespace, Object value);

	/**
	 * Return the standard strategy: SHA-256 of {@code namespace:value}, cut to 64 bits.
	 * @return the strategy backed by {@link AdvisoryLockKeys#of(String, Object)}
	 */
	static LockKeyStrategy standard() {
		return AdvisoryLockKeys::of;
	}

}
