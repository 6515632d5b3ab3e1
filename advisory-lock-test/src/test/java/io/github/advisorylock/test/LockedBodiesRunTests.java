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

package io.github.advisorylock.test;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests of {@link LockedBodies.Run}, what the serialization assertion sees of the bodies
 * its calls enter: more calls in bodies at once than the permits allow, however they come
 * to overlap, and entries while the lock was held from outside.
 */
class LockedBodiesRunTests {

	private static final Method BODY = method();

	@Test
	void twoCallsInABodyAtOnceOverlapWhereOneMayBe() {
		LockedBodies.Run run = new LockedBodies.Run(1);
		run.released();
		run.enter(0, BODY);
		run.enter(1, BODY);
		assertThat(run.overlaps()).singleElement()
			.asString()
			.contains("calls [0, 1] were in")
			.contains("where 1 may be");
	}

	@Test
	void callsOneAfterAnotherDoNotOverlap() {
		LockedBodies.Run run = new LockedBodies.Run(1);
		run.released();
		for (int call = 0; call < 3; call++) {
			run.enter(call, BODY);
			run.exit(call);
		}
		assertThat(run.overlaps()).isEmpty();
		assertThat(run.bodiesEntered()).isEqualTo(3);
	}

	@Test
	void aLimitAllowsItsPermitsAtOnceAndNoMore() {
		LockedBodies.Run run = new LockedBodies.Run(2);
		run.released();
		run.enter(0, BODY);
		run.enter(1, BODY);
		assertThat(run.overlaps()).isEmpty();
		run.enter(2, BODY);
		assertThat(run.overlaps()).singleElement().asString().contains("where 2 may be");
	}

	@Test
	void aNestedBodyOfTheSameCallIsNoOverlap() {
		LockedBodies.Run run = new LockedBodies.Run(1);
		run.released();
		run.enter(0, BODY);
		run.enter(0, BODY);
		run.exit(0);
		run.enter(1, BODY);
		assertThat(run.overlaps()).singleElement().asString().contains("calls [0, 1]");
	}

	@Test
	void anEntryWhileTheLockIsHeldFromOutsideIsReported() {
		LockedBodies.Run run = new LockedBodies.Run(1);
		run.enter(0, BODY);
		assertThat(run.entriesWhileHeld()).singleElement().asString().startsWith("call 0 entered ");
	}

	@Test
	void oneRunAtATime() {
		LockedBodies bodies = new LockedBodies();
		LockedBodies.Run first = bodies.start(1);
		assertThatIllegalStateException().isThrownBy(() -> bodies.start(1))
			.withMessageContaining("Another run of concurrent calls is in progress");
		bodies.stop(first);
		bodies.stop(bodies.start(1));
	}

	private static Method method() {
		try {
			return LockedBodiesRunTests.class.getDeclaredMethod("method");
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
