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
 * What to do when an advisory lock is held by another transaction.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public enum WaitMode {

	/**
	 * Wait inside PostgreSQL, without polling, for at most the timeout; then fail with
	 * {@link LockBusyException}.
	 */
	BLOCK,

	/**
	 * Fail at once with {@link LockBusyException} ({@code pg_try_advisory_xact_lock}).
	 */
	TRY,

	/**
	 * Take the locks if they are free; if one is held, do not run the work and return
	 * without an error: nothing for a {@code void} method, {@code Optional.empty()} for
	 * one returning {@link java.util.Optional}, and {@link LockResult#skipped()} from
	 * {@link AdvisoryLockOperations#execute}. Nothing stays held after a skip. For
	 * scheduled work that another instance is already doing.
	 * @see LockScope#INVOCATION
	 */
	SKIP

}
