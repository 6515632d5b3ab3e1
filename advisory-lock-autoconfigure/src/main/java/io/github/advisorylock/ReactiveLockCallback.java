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

import org.reactivestreams.Publisher;

/**
 * Work to run under advisory locks on the reactive stack, given to
 * {@link ReactiveAdvisoryLockOperations#execute}: the twin of {@link LockCallback}.
 *
 * @param <T> the type of the elements
 * @author advisory-lock authors
 * @since 0.1.0
 */
@FunctionalInterface
public interface ReactiveLockCallback<T> {

	/**
	 * Make the work to run while the locks are held; called, and its publisher
	 * subscribed, only once they are.
	 * @param handle the held locks
	 * @return the work's publisher
	 */
	Publisher<T> doWithLock(LockHandle handle);

}
