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

import java.util.List;

import org.springframework.dao.DataAccessResourceFailureException;

/**
 * Thrown by {@link LockHandle#checkHeld()} and {@link AdvisoryLockOperations#checkHeld()}
 * when an {@link LockScope#INVOCATION invocation-scoped} lock was lost while its work
 * runs (its connection failed a heartbeat, was terminated, or the server restarted), by a
 * fenced write that finds it lost, and by a call whose locks were lost, once its work has
 * ended (see {@link AdvisoryLockOperations#execute}). Another instance may already hold
 * the lock, so long work should stop at its next safe point. What it did since the loss
 * is not undone; only fenced writes cannot land after the next holder's
 * (docs/scheduled-work.md, "Fenced writes").
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class LockLostException extends DataAccessResourceFailureException {

	private final String namespace;

	private final List<String> keyValues;

	/**
	 * Create a new instance.
	 * @param namespace the namespace of the lost lock
	 * @param keyValues the text of its key values
	 * @param cause what showed the loss: the heartbeat's failure, or the time without a
	 * confirmed heartbeat
	 */
	public LockLostException(String namespace, List<String> keyValues, Throwable cause) {
		super("Advisory lock " + AdvisoryLockKeys.printable(namespace, keyValues) + " was lost while its work ran ("
				+ cause.getMessage() + "): another instance may hold it now; stop the work at a safe point", cause);
		this.namespace = namespace;
		this.keyValues = List.copyOf(keyValues);
	}

	/**
	 * Return the namespace of the lost lock.
	 * @return the namespace
	 */
	public String getNamespace() {
		return this.namespace;
	}

	/**
	 * Return the text of the key values of the lost lock.
	 * @return the key values
	 */
	public List<String> getKeyValues() {
		return this.keyValues;
	}

}
