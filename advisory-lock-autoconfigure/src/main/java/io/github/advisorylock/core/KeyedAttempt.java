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

import io.github.advisorylock.LockAcquisitionListener.Acquisition;

/**
 * What an attempt found, and its keys: a plain lock's, or a limit's slot taken, or every
 * slot when none was.
 *
 * @param attempt what the attempt found
 * @param keys the keys to record, log and name in a busy error
 * @param permit the index of the limit's permit taken, or {@value #NO_PERMIT}
 * @author advisory-lock authors
 */
public record KeyedAttempt(LockAttempt attempt, LockKeys keys, int permit) {

	/** The permit of an attempt that took none, or of a plain lock. */
	public static final int NO_PERMIT = -1;

	/** Create the attempt of a plain lock. */
	public KeyedAttempt(LockAttempt attempt, LockKeys keys) {
		this(attempt, keys, NO_PERMIT);
	}

	/** Tell the listeners the permit taken, if any, then the outcome. */
	public void tell(Acquisition acquisition) {
		if (this.permit != NO_PERMIT) {
			acquisition.permitTaken(this.permit);
		}
		acquisition.finished(this.attempt.outcome(), this.attempt.timedOut());
	}

}
