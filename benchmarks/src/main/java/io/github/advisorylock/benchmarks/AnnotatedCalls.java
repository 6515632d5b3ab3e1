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

package io.github.advisorylock.benchmarks;

import java.util.List;

import io.github.advisorylock.AdvisoryLocked;

import org.springframework.transaction.annotation.Transactional;

/**
 * Transactions that lock through {@code @AdvisoryLocked}, as an application writes them.
 */
public class AnnotatedCalls {

	/** The namespace of every benchmark lock. */
	static final String NAMESPACE = "bench";

	/**
	 * Lock one key and commit.
	 * @param key the resource
	 */
	@Transactional
	@AdvisoryLocked(namespace = NAMESPACE, key = "#key")
	public void lockOne(long key) {
	}

	/**
	 * Lock several keys in one call and commit.
	 * @param keys the resources
	 */
	@Transactional
	@AdvisoryLocked(namespace = NAMESPACE, key = "#keys")
	public void lockMany(List<Long> keys) {
	}

	/**
	 * Lock one key, run the body while holding it, and commit.
	 * @param key the resource
	 * @param body what the transaction does under the lock
	 */
	@Transactional
	@AdvisoryLocked(namespace = NAMESPACE, key = "#key", timeout = "60s")
	public void lockAndRun(long key, Runnable body) {
		body.run();
	}

}
