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
 * How long an advisory lock lasts.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public enum LockScope {

	/**
	 * As long as the caller's Spring transaction: the lock is taken on that transaction's
	 * connection and PostgreSQL releases it at COMMIT or ROLLBACK. For a "check, then
	 * write" rule inside one transaction.
	 */
	TRANSACTION,

	/**
	 * As long as the method invocation, across any number of transactions of its own: a
	 * dedicated connection holds the lock in a read-only transaction opened before the
	 * body and rolled back after it. For a {@code @Scheduled} job or a batch that must
	 * run on one instance at a time; it refuses to start inside a transaction.
	 */
	INVOCATION

}
