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
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Parses each key expression once per method and target class, and evaluates it per call
 * against the method arguments: {@code #name} (with {@code -parameters}),
 * {@code #p0}/{@code #a0}, {@code #root.args}, and {@code @bean} references.
 *
 * @author advisory-lock authors
 */
class LockKeyExpressionEvaluator extends CachedExpressionEvaluator {

	private final Map<ExpressionKey, Expression> expressions = new ConcurrentHashMap<>(64);

	private final StandardEvaluationContext sharedContext = new StandardEvaluationContext();

	/**
	 * Create an evaluator.
	 * @param beanFactory resolves {@code @bean} references, or {@code null} for none
	 */
	LockKeyExpressionEvaluator(@Nullable BeanFactory beanFactory) {
		if (beanFactory != null) {
			this.sharedContext.setBeanResolver(new BeanFactoryResolver(beanFactory));
		}
	}

	/**
	 * Parse an expression and check that every variable it names is a parameter of the
	 * method, so a typo fails at startup instead of giving a null key at the first call.
	 * @param method the method, as declared on the target class
	 * @param targetClass the target class
	 * @throws RuntimeException if the expression cannot be parsed or names an unknown
	 * variable
	 */
	void validate(String expression, Method method, @Nullable Class<?> targetClass) {
		Expression parsed = getExpression(this.expressions, new AnnotatedElementKey(method, targetClass), expression);
		if (!(parsed instanceof SpelExpression spel)) {
			return;
		}
		String[] names = getParameterNameDiscoverer().getParameterNames(method);
		Set<String> known = new HashSet<>((names != null) ? Set.of(names) : Set.of());
		known.add("root");
		known.add("this");
		for (int i = 0; i < method.getParameterCount(); i++) {
			known.add("p" + i);
			known.add("a" + i);
		}
		checkVariables(spel.getAST(), known, names != null);
	}

	private static void checkVariables(SpelNode node, Set<String> known, boolean namesKnown) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!known.contains(name)) {
				throw new IllegalArgumentException("#" + name + " is not a parameter of the method; known: "
						+ known.stream().sorted().toList() + (namesKnown ? ""
								: " (parameter names are not in the class file: compile with -parameters, or use #p0)"));
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkVariables(node.getChild(i), known, namesKnown);
		}
	}

	/**
	 * Return the index of the parameter an expression only names ({@code #userId},
	 * {@code #p0}, {@code #a0}), so that a call reads it without evaluating SpEL
	 * (docs/decisions.md, "Cost and round trips").
	 * @param method the method, as declared on the target class
	 * @return the index, or {@code -1} when the expression is anything else
	 */
	int parameterIndex(String expression, Method method) {
		String text = expression.strip();
		if (!text.matches("#[A-Za-z_$][A-Za-z0-9_$]*")) {
			return -1;
		}
		String name = text.substring(1);
		// MethodBasedEvaluationContext's order: a later variable of the same name wins.
		// Kotlin's names leave out a suspend function's Continuation.
		String[] names = getParameterNameDiscoverer().getParameterNames(method);
		int index = -1;
		for (int i = 0; i < method.getParameterCount(); i++) {
			if (name.equals("a" + i) || name.equals("p" + i)
					|| (names != null && i < names.length && name.equals(names[i]))) {
				index = i;
			}
		}
		return index;
	}

	/**
	 * Evaluate a key expression for one call.
	 * @param method the method, as declared on the target class
	 * @param targetClass the target class
	 * @param context the context of the call, from {@link #createContext}
	 * @return the value: one key value, a collection or array of them, or {@code null}
	 */
	@Nullable Object evaluate(String expression, Method method, @Nullable Class<?> targetClass, EvaluationContext context) {
		return getExpression(this.expressions, new AnnotatedElementKey(method, targetClass), expression)
			.getValue(context);
	}

	/**
	 * Create the context of one call; method arguments are exposed as variables lazily.
	 * @param method the method, as declared on the target class
	 * @param args the arguments
	 * @param target the target object
	 * @return the context
	 */
	EvaluationContext createContext(Method method, @Nullable Object[] args, @Nullable Object target) {
		ParameterNameDiscoverer names = getParameterNameDiscoverer();
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
				new LockKeyRootObject(method, args, target), method, args, names);
		this.sharedContext.applyDelegatesTo(context);
		return context;
	}

	/**
	 * The root object of key expressions: {@code #root.method}, {@code #root.args},
	 * {@code #root.target}.
	 */
	static final class LockKeyRootObject {

		private final Method method;

		private final @Nullable Object[] args;

		private final @Nullable Object target;

		LockKeyRootObject(Method method, @Nullable Object[] args, @Nullable Object target) {
			this.method = method;
			this.args = args;
			this.target = target;
		}

		public Method getMethod() {
			return this.method;
		}

		public @Nullable Object[] getArgs() {
			return this.args;
		}

		public @Nullable Object getTarget() {
			return this.target;
		}

	}

}
