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
package io.github.advisorylock.integration;

import java.util.concurrent.locks.Lock;

import io.github.advisorylock.LockHandle;
import io.github.advisorylock.LockLostException;

/**
 * A {@link Lock} whose every hold has a fencing token: a number greater than the token of
 * every earlier hold of the same lock, in this process or another, for a store outside
 * the lock's database to refuse the writes of a holder that lost it
 * ({@link LockHandle#fencingToken()} says what it promises and costs). The locks of
 * {@link AdvisoryLockRegistry} are ones, so a leader that
 * {@code LockRegistryLeaderInitiator} elects with them gets an epoch:
 * {@code ((FencedLock) registry.obtain(key)).fencingToken()} in its {@code onGranted}.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public interface FencedLock extends Lock {

	/**
	 * Return the fencing token of the current hold, from any thread of this process,
	 * issued at the first ask of the hold and the same afterwards.
	 * @return the token
	 * @throws IllegalStateException if no thread of this process holds the lock
	 * @throws LockLostException if the hold was found lost
	 */
	long fencingToken();

}
