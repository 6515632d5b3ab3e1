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

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.security.CodeSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;

import io.github.advisorylock.jdbc.AdvisoryLockTemplate;

/**
 * Captures the library's frames on the stack at the moment a lock statement executes: how
 * deep a call goes before its SQL, counted as issue "One lock flow" asks (library methods
 * entered, and the distinct library classes among them). A frame is the library's when
 * its class comes from the same place as the library's main classes, so that tests,
 * Spring's proxies and the drivers are left out.
 */
final class LockStatementStacks {

	/** The statements that take an advisory lock, on either scope and either driver. */
	private static final Pattern LOCK_STATEMENT = Pattern.compile("pg_(try_)?advisory(_xact)?_lock(_shared)?\\s*\\(",
			Pattern.CASE_INSENSITIVE);

	private static final CodeSource LIBRARY = Objects
		.requireNonNull(AdvisoryLockTemplate.class.getProtectionDomain().getCodeSource());

	private final List<List<StackWalker.StackFrame>> captured = new CopyOnWriteArrayList<>();

	/**
	 * Record the stack if the SQL takes an advisory lock.
	 * @param sql the statement's text
	 */
	void onExecute(String sql) {
		if (LOCK_STATEMENT.matcher(sql).find()) {
			this.captured.add(StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
				.walk((frames) -> frames.filter(LockStatementStacks::isLibrary).toList()));
		}
	}

	/**
	 * Return the library frames of the first lock statement captured, innermost first,
	 * down to (and with) {@code AdvisoryLockInterceptor.invoke} when it is on the stack.
	 */
	List<StackWalker.StackFrame> first() {
		if (this.captured.isEmpty()) {
			throw new AssertionError("No lock statement was executed");
		}
		List<StackWalker.StackFrame> frames = this.captured.get(0);
		for (int i = 0; i < frames.size(); i++) {
			if (frames.get(i).getDeclaringClass() == AdvisoryLockInterceptor.class) {
				return frames.subList(0, i + 1);
			}
		}
		return frames;
	}

	static long classes(List<StackWalker.StackFrame> frames) {
		return frames.stream().map((frame) -> topLevel(frame.getDeclaringClass())).distinct().count();
	}

	static String describe(List<StackWalker.StackFrame> frames) {
		StringBuilder path = new StringBuilder();
		for (int i = frames.size() - 1; i >= 0; i--) {
			StackWalker.StackFrame frame = frames.get(i);
			path.append("\n  ").append(frame.getDeclaringClass().getName()).append('.').append(frame.getMethodName());
		}
		return path.toString();
	}

	private static Class<?> topLevel(Class<?> type) {
		Class<?> each = type;
		while (each.getEnclosingClass() != null) {
			each = each.getEnclosingClass();
		}
		return each;
	}

	private static boolean isLibrary(StackWalker.StackFrame frame) {
		CodeSource source = frame.getDeclaringClass().getProtectionDomain().getCodeSource();
		return source != null && LIBRARY.getLocation().equals(source.getLocation())
				&& !frame.getDeclaringClass().getName().contains("$$");
	}

	/**
	 * Return a connection that tells this capture of every statement it executes.
	 * @param connection the connection
	 * @return its proxy
	 */
	Connection capturing(Connection connection) {
		return proxy(Connection.class, connection, (method, args, result) -> {
			if (method.equals("prepareStatement") && result instanceof PreparedStatement statement) {
				String sql = (String) args[0];
				return proxy(PreparedStatement.class, statement, (each, eachArgs, eachResult) -> eachResult, (each) -> {
					if (each.startsWith("execute")) {
						onExecute(sql);
					}
				});
			}
			return result;
		}, (method) -> {
		});
	}

	private static <T> T proxy(Class<T> type, T target, After after, Before before) {
		InvocationHandler handler = (proxy, method, args) -> {
			before.before(method.getName());
			try {
				return after.after(method.getName(), args, method.invoke(target, args));
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		};
		return type
			.cast(Proxy.newProxyInstance(LockStatementStacks.class.getClassLoader(), new Class<?>[] { type }, handler));
	}

	@FunctionalInterface
	private interface After {

		Object after(String method, Object[] args, Object result);

	}

	@FunctionalInterface
	private interface Before {

		void before(String method);

	}

}
