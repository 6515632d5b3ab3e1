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

package io.github.advisorylock.autoconfigure;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Thrown at startup when the application uses advisory locks but lacks what they need.
 * Its message is the whole report, so that it reads well where no failure analyzer runs;
 * {@link MissingLockPrerequisiteFailureAnalyzer} splits it into description and action.
 *
 * @author advisory-lock authors
 */
final class MissingLockPrerequisiteException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String user;

	private final Set<LockPrerequisite> missing;

	/**
	 * Create an exception.
	 * @param user what needs the lock, a sentence's subject
	 * @param missing the missing prerequisites, not empty
	 */
	MissingLockPrerequisiteException(String user, Set<LockPrerequisite> missing) {
		super(LockPrerequisite.describe(user, missing) + "\n" + LockPrerequisite.action(missing));
		this.user = user;
		this.missing = Collections.unmodifiableSet(EnumSet.copyOf(missing));
	}

	String getUser() {
		return this.user;
	}

	Set<LockPrerequisite> getMissing() {
		return this.missing;
	}

}
