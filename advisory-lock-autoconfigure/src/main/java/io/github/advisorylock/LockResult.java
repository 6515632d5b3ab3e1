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

import java.util.NoSuchElementException;

import org.jspecify.annotations.Nullable;

/**
 * What an {@link AdvisoryLockOperations#execute execute} call did: ran its callback, with
 * the callback's value, or skipped it because a lock was held ({@link WaitMode#SKIP}).
 *
 * @param <T> the type of the callback's result
 * @author advisory-lock authors
 * @since 0.1.0
 */
public final class LockResult<T extends @Nullable Object> {

	private static final LockResult<?> SKIPPED = new LockResult<>(false, null);

	private final boolean executed;

	private final @Nullable T value;

	private LockResult(boolean executed, @Nullable T value) {
		this.executed = executed;
		this.value = value;
	}

	/**
	 * Return the result of a callback that ran.
	 * @param value what it returned
	 * @param <T> the type of the result
	 * @return the result
	 */
	public static <T extends @Nullable Object> LockResult<T> executed(T value) {
		return new LockResult<>(true, value);
	}

	/**
	 * Return the result of a call that did not run its callback.
	 * @param <T> the type of the result
	 * @return the result
	 */
	@SuppressWarnings("unchecked")
	public static <T extends @Nullable Object> LockResult<T> skipped() {
		return (LockResult<T>) SKIPPED;
	}

	/**
	 * Return whether the callback ran.
	 * @return {@code true} if it ran, {@code false} if a lock was held and the call
	 * skipped it
	 */
	public boolean executed() {
		return this.executed;
	}

	/**
	 * Return what the callback returned.
	 * @return the value, possibly {@code null}
	 * @throws NoSuchElementException if the callback did not run
	 */
	public @Nullable T value() {
		if (!this.executed) {
			throw new NoSuchElementException("The callback did not run: a lock was held and the call was skipped");
		}
		return this.value;
	}

	@Override
	public String toString() {
		return this.executed ? "LockResult[executed, value=" + this.value + "]" : "LockResult[skipped]";
	}

}
