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

package io.github.advisorylock.core;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.LockRequest;
import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of a template's lifecycle: what its close refuses and which waits it cancels.
 */
class LockLifecycleTests {

	private final LockLifecycle lifecycle = new LockLifecycle();

	private final LockRequest request = LockRequest.of("n", 1);

	@Test
	void closingCancelsTheWaitsInProgressAndNoneThatEnded() {
		AtomicInteger waiting = new AtomicInteger();
		AtomicInteger ended = new AtomicInteger();
		this.lifecycle.whileWaiting(waiting::incrementAndGet);
		this.lifecycle.whileWaiting(ended::incrementAndGet).run();
		this.lifecycle.close();
		assertThat(waiting).hasValue(1);
		assertThat(ended).hasValue(0);
	}

	@Test
	void aWaitRegisteredOnceClosedIsCancelledAtOnce() {
		AtomicInteger cancelled = new AtomicInteger();
		this.lifecycle.close();
		this.lifecycle.whileWaiting(cancelled::incrementAndGet);
		assertThat(cancelled).hasValue(1);
	}

	@Test
	void onceClosedNoCallStartsAndOneGrantedOrFailedMeanwhileFailsAsTheShutdown() {
		IllegalStateException failure = new IllegalStateException("the wait's failure");
		this.lifecycle.checkOpen(this.request);
		assertThat(this.lifecycle.closedOr(this.request, null)).isNull();
		assertThat(this.lifecycle.closedOr(this.request, failure)).isSameAs(failure);
		this.lifecycle.close();
		assertThat(this.lifecycle.isClosed()).isTrue();
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> this.lifecycle.checkOpen(this.request));
		assertThat(this.lifecycle.closedOr(this.request, null)).isInstanceOf(CannotAcquireLockException.class);
		assertThat(this.lifecycle.closedOr(this.request, failure)).isInstanceOf(CannotAcquireLockException.class)
			.hasCause(failure);
	}

}
