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

import org.jspecify.annotations.Nullable;

/**
 * Work to run under advisory locks, given to {@link AdvisoryLockOperations#execute}.
 *
 * @param <T> the type of the result
 * @author advisory-lock authors
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockCallback<T extends @Nullable Object> {

	/**
	 * Do the work while the locks are held.
	 * @param handle the held locks, to {@link LockHandle#checkHeld() check} at safe
	 * points of long work
	 * @return the result, or {@code null}
	 */
	T doWithLock(LockHandle handle);

}
