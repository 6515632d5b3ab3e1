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

package io.github.advisorylock.core.transaction;

import java.util.ArrayList;
import java.util.List;

import io.github.advisorylock.LockAcquisitionListener.Acquisition;
import io.github.advisorylock.LockAcquisitionListener.Outcome;
import io.github.advisorylock.LockMode;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the record of a transaction's keys through its savepoints, without a database:
 * that PostgreSQL releases the locks taken after a savepoint is asserted against a real
 * one in {@code TransactionLocksTests}.
 */
class TransactionLockRecordTests {

	private final Object resource = new Object();

	private final Object connection = new Object();

	private final List<String> told = new ArrayList<>();

	private final TransactionLockRecord record = new TransactionLockRecord();

	@Test
	void aRollbackToASavepointForgetsAndTellsOnceEachAcquisitionTakenAfterIt() {
		this.record.record(LockMode.EXCLUSIVE, List.of(1L), this.resource, this.connection, acquisition("before"));
		this.record.savepoint("nested");
		this.record.record(LockMode.EXCLUSIVE, List.of(2L, 3L), this.resource, this.connection, acquisition("after"));
		this.record.savepointRollback("nested");
		assertThat(this.told).containsExactly("after");
		assertThat(this.record.holds(1L, this.resource)).isTrue();
		assertThat(this.record.holds(2L, null)).isFalse();
		assertThat(this.record.holds(3L, null)).isFalse();
	}

	@Test
	void aRollbackToASavepointMadeAfterALockKeepsItAndTellsNobody() {
		this.record.record(LockMode.SHARED, List.of(1L), this.resource, this.connection, acquisition("before"));
		this.record.savepoint("outer");
		this.record.savepoint("inner");
		this.record.savepointRollback("inner");
		assertThat(this.told).isEmpty();
		assertThat(this.record.holds(1L, this.resource)).isTrue();
		assertThat(this.record.holds(1L, new Object())).as("on another resource").isFalse();
	}

	@Test
	void aRollbackToASavepointItNeverSawReleasesEveryKey() {
		this.record.record(LockMode.EXCLUSIVE, List.of(1L), this.resource, this.connection, acquisition("first"));
		this.record.record(LockMode.EXCLUSIVE, List.of(2L), this.resource, this.connection, Acquisition.IGNORED);
		this.record.savepointRollback("made before the record");
		assertThat(this.told).containsExactly("first");
		assertThat(this.record.holds(1L, null)).isFalse();
	}

	private Acquisition acquisition(String name) {
		return new Acquisition() {

			@Override
			public void finished(Outcome outcome, @Nullable Throwable error) {
			}

			@Override
			public void releasedToSavepoint() {
				TransactionLockRecordTests.this.told.add(name);
			}

		};
	}

}
