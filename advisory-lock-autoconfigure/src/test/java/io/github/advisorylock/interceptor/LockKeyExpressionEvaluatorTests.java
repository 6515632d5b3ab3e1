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
package io.github.advisorylock.interceptor;

import java.lang.reflect.Method;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.expression.EvaluationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a key expression read straight from the arguments gives what SpEL's
 * evaluation of it gives.
 */
class LockKeyExpressionEvaluatorTests {

	private final LockKeyExpressionEvaluator evaluator = new LockKeyExpressionEvaluator(null);

	@Test
	void aBareParameterReferenceIsReadFromTheArgumentSpelWouldReturn() throws Exception {
		// Parameter names that shadow the index forms: SpEL sets a later variable of the
		// same name over an earlier.
		Method method = Tricky.class.getMethod("call", String.class, String.class, String.class);
		Object[] args = { "first", "second", "third" };
		EvaluationContext context = this.evaluator.createContext(method, args, new Tricky());
		for (String expression : List.of("#first", "#p0", "#a0", "#a1", "#p1", "#p2", "#a2", " #first ")) {
			int index = this.evaluator.parameterIndex(expression, method);
			assertThat(index).as(expression).isNotNegative();
			assertThat(args[index]).as(expression)
				.isEqualTo(this.evaluator.evaluate(expression.strip(), method, Tricky.class, context));
		}
	}

	@Test
	void anythingElseIsEvaluated() throws Exception {
		Method method = Tricky.class.getMethod("call", String.class, String.class, String.class);
		for (String expression : List.of("#first.length()", "#p3", "#unknown", "'literal'", "#root.args[0]",
				"#first + #p0", "@bean")) {
			assertThat(this.evaluator.parameterIndex(expression, method)).as(expression).isEqualTo(-1);
		}
	}

	static class Tricky {

		public void call(String first, String p0, String a1) {
		}

	}

}
