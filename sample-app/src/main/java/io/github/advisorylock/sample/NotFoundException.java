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

package io.github.advisorylock.sample;

/**
 * A request naming a user, account or setup request that does not exist: answered with
 * 404 Not Found.
 */
public class NotFoundException extends RuntimeException {

	/**
	 * Create an exception.
	 * @param what the kind of thing, such as {@code "User"}
	 * @param id its id
	 */
	public NotFoundException(String what, Object id) {
		super(what + " " + id + " does not exist");
	}

}
