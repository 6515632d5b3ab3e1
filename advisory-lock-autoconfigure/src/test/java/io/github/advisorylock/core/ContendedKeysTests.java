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

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.github.advisorylock.LockRequest;
import io.github.advisorylock.WaitMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ContendedKeys}: which requests wait for a key at once, and for how
 * long a key found held is remembered. The waits themselves are tested against PostgreSQL
 * in the contract tests.
 */
class ContendedKeysTests {

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final ContendedKeys contended = new ContendedKeys(this.now::get);

	private final LockRequest block = LockRequest.of("orders", "a");

	private final LockKeys one = new LockKeys(List.of(42L), List.of("a"));

	@Test
	void aKeyNeverFoundHeldIsTriedFirst() {
		assertThat(this.contended.waitsFirst(this.block, this.one)).isFalse();
	}

	@Test
	void aBlockOfAKeyFoundHeldWaitsAtOnceUntilTheFindingIsForgotten() {
		this.contended.foundHeld(42L);
		assertThat(this.contended.waitsFirst(this.block, this.one)).isTrue();
		this.now.addAndGet(ContendedKeys.MEMORY.toNanos() - 1);
		assertThat(this.contended.waitsFirst(this.block, this.one)).isTrue();
		this.now.incrementAndGet();
		assertThat(this.contended.waitsFirst(this.block, this.one)).isFalse();
		// Found held again: remembered again.
		this.contended.foundHeld(42L);
		assertThat(this.contended.waitsFirst(this.block, this.one)).isTrue();
	}

	@Test
	void onlyABlockOfOneKeyWithoutALimitWaitsAtOnce() {
		this.contended.foundHeld(42L);
		assertThat(this.contended.waitsFirst(this.block.withWaitMode(WaitMode.TRY), this.one)).isFalse();
		assertThat(this.contended.waitsFirst(this.block.withWaitMode(WaitMode.SKIP), this.one)).isFalse();
		assertThat(this.contended.waitsFirst(this.block.withPermits(2), this.one)).isFalse();
		assertThat(this.contended.waitsFirst(LockRequest.of("orders", "a", "b"),
				new LockKeys(List.of(42L, 43L), List.of("a", "b"))))
			.isFalse();
	}

	@Test
	void anotherKeyIsNotTakenForOneFoundHeld() {
		this.contended.foundHeld(42L);
		assertThat(this.contended.waitsFirst(this.block, new LockKeys(List.of(43L), List.of("b")))).isFalse();
		// The same slot of the table: the later finding replaces the earlier.
		long sameSlot = 42L + ContendedKeys.SLOTS;
		this.contended.foundHeld(sameSlot);
		assertThat(this.contended.waitsFirst(this.block, new LockKeys(List.of(sameSlot), List.of("c")))).isTrue();
		assertThat(this.contended.waitsFirst(this.block, this.one)).isFalse();
	}

	@Test
	void aClockThatReadsZeroStillCountsAsAFinding() {
		this.now.set(0);
		this.contended.foundHeld(42L);
		assertThat(this.contended.waitsFirst(this.block, this.one)).isTrue();
	}

}
