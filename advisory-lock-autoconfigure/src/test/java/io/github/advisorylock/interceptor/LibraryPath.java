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

import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;

import io.github.advisorylock.jdbc.AdvisoryLockTemplate;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.RecordComponentDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Records the library methods that a call enters on its way to its lock statement, as the
 * issue "Core decides, each stack executes" counts them. An agent from Maven Central
 * (Byte Buddy's) adds a few instructions at the start and the end of every method and
 * constructor of the library's main classes, and they report here; the record starts at
 * the next {@code AdvisoryLockInterceptor.invoke} after {@link #arm()} and ends when a
 * statement that takes an advisory lock executes.
 * <p>
 * What counts: methods and constructors of classes of {@code io.github.advisorylock}
 * loaded from the library's main classes (not tests, not Spring's generated proxies),
 * counted once each however often they are entered. What does not: accessors of records
 * (reading a value is not a step), lambdas' synthetic methods (the method that wrote the
 * lambda is counted where it ran) and static initializers (run once per JVM, not per
 * call). A class is counted as the JVM sees it, so a nested class is a class of its own.
 * <p>
 * The record is shared by every thread, since a reactive call moves between threads on
 * its way; each thread keeps its own stack of library methods, from which a bounce is
 * read: a call stack on which a package is entered again after another one (core → jdbc →
 * core).
 */
public final class LibraryPath {

	/** The statements that take an advisory lock, on either scope and either driver. */
	private static final Pattern LOCK_STATEMENT = Pattern.compile("pg_(try_)?advisory(_xact)?_lock(_shared)?\\s*\\(",
			Pattern.CASE_INSENSITIVE);

	private static final URL LIBRARY = Objects
		.requireNonNull(AdvisoryLockTemplate.class.getProtectionDomain().getCodeSource())
		.getLocation();

	private static final String INTERCEPTOR = AdvisoryLockInterceptor.class.getName();

	private static final ThreadLocal<Deque<String>> STACKS = ThreadLocal.withInitial(ArrayDeque::new);

	private static final ConcurrentLinkedQueue<Entry> ENTRIES = new ConcurrentLinkedQueue<>();

	private static volatile State state = State.OFF;

	private LibraryPath() {
	}

	/**
	 * Instrument the library's classes, loaded and to be loaded, until the returned
	 * transformer is reset.
	 * @return the transformer to reset with {@link #uninstall}
	 */
	static Installed install() {
		Instrumentation instrumentation = ByteBuddyAgent.install();
		Set<String> transformed = ConcurrentHashMap.newKeySet();
		List<String> failures = new CopyOnWriteArrayList<>();
		ResettableClassFileTransformer transformer = new AgentBuilder.Default().disableClassFormatChanges()
			.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
			// Reads the classes' bytes rather than reflecting on them, which loads
			// fewer of them while the transformer is busy.
			.with(AgentBuilder.DescriptionStrategy.Default.POOL_ONLY)
			.with(new AgentBuilder.Listener.Adapter() {

				@Override
				public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module,
						boolean loaded, DynamicType dynamicType) {
					transformed.add(type.getName());
				}

				@Override
				public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded,
						Throwable throwable) {
					failures.add(typeName + ": " + throwable);
				}

			})
			.ignore(ElementMatchers.none())
			.type(LibraryPath::isLibraryType)
			.transform((builder, type, classLoader, module, domain) -> builder
				.visit(Advice.to(MethodAdvice.class).on(counted(type).and(ElementMatchers.isMethod())))
				.visit(Advice.to(ConstructorAdvice.class).on(counted(type).and(ElementMatchers.isConstructor()))))
			.installOn(instrumentation);
		Installed installed = new Installed(instrumentation, transformer);
		// A class that the JVM loads while the transformer works on another one is passed
		// over (the transformer does not run inside itself): transform those now.
		List<Class<?>> missed = missed(instrumentation, transformed);
		if (!missed.isEmpty()) {
			try {
				instrumentation.retransformClasses(missed.toArray(Class<?>[]::new));
			}
			catch (UnmodifiableClassException ex) {
				failures.add(ex.toString());
			}
		}
		missed(instrumentation, transformed).forEach((type) -> failures.add(type.getName() + ": not transformed"));
		if (!failures.isEmpty()) {
			// A class left as it was would hide its methods from every count.
			installed.uninstall();
			throw new IllegalStateException("The library's classes could not all be instrumented: " + failures);
		}
		return installed;
	}

	private static List<Class<?>> missed(Instrumentation instrumentation, Set<String> transformed) {
		return Arrays.<Class<?>>stream(instrumentation.getAllLoadedClasses())
			.filter((type) -> type.getName().startsWith("io.github.advisorylock.") && !type.isAnnotation()
					&& !type.isSynthetic() && !type.getName().contains("$$") && isLibrary(type.getProtectionDomain())
					&& !transformed.contains(type.getName()))
			.toList();
	}

	private static boolean isLibraryType(TypeDescription type, ClassLoader classLoader, JavaModule module,
			Class<?> classBeingRedefined, ProtectionDomain domain) {
		return type.getName().startsWith("io.github.advisorylock.") && !type.getName().contains("$$")
				&& isLibrary(domain);
	}

	private static boolean isLibrary(@Nullable ProtectionDomain domain) {
		CodeSource source = (domain != null) ? domain.getCodeSource() : null;
		return source != null && LIBRARY.equals(source.getLocation());
	}

	private static ElementMatcher.Junction<MethodDescription> counted(TypeDescription type) {
		Set<String> accessors = new LinkedHashSet<>();
		if (type.isRecord()) {
			for (RecordComponentDescription.InDefinedShape component : type.getRecordComponents()) {
				accessors.add(component.getActualName());
			}
		}
		return ElementMatchers.<MethodDescription>not(ElementMatchers.isSynthetic())
			.and(ElementMatchers.not(ElementMatchers.isAbstract()))
			.and(ElementMatchers.not(ElementMatchers.isNative()))
			.and(ElementMatchers
				.not((method) -> method.getParameters().isEmpty() && accessors.contains(method.getInternalName())));
	}

	/**
	 * Start a record at the next entry into {@code AdvisoryLockInterceptor.invoke}.
	 */
	static void arm() {
		ENTRIES.clear();
		state = State.ARMED;
	}

	/**
	 * Return the methods entered since the record started, in order.
	 * @return the path
	 */
	static Path path() {
		if (state != State.DONE) {
			throw new AssertionError("No lock statement was executed after AdvisoryLockInterceptor.invoke (" + state
					+ "): nothing to count");
		}
		return new Path(List.copyOf(ENTRIES));
	}

	/**
	 * Called where a library method starts: a public method, since the call is written
	 * into the library's classes.
	 * @param type the method's class
	 * @param method the method's name and descriptor
	 */
	public static void entered(String type, String method) {
		Deque<String> stack = STACKS.get();
		String packageName = packageOf(type);
		if (state == State.ARMED && type.equals(INTERCEPTOR) && method.startsWith("invoke(")) {
			stack.clear();
			state = State.RECORDING;
		}
		if (state == State.RECORDING) {
			List<String> chain = new ArrayList<>();
			stack.descendingIterator().forEachRemaining((each) -> {
				if (chain.isEmpty() || !chain.get(chain.size() - 1).equals(each)) {
					chain.add(each);
				}
			});
			if (chain.isEmpty() || !chain.get(chain.size() - 1).equals(packageName)) {
				chain.add(packageName);
			}
			ENTRIES.add(new Entry(Thread.currentThread().getName(), stack.size(), type, method, List.copyOf(chain)));
		}
		stack.push(packageName);
	}

	/**
	 * Called where a library method returns or throws.
	 */
	public static void exited() {
		Deque<String> stack = STACKS.get();
		if (!stack.isEmpty()) {
			stack.pop();
		}
	}

	static void onExecute(String sql) {
		if (state == State.RECORDING && LOCK_STATEMENT.matcher(sql).find()) {
			state = State.DONE;
		}
	}

	/**
	 * Return a connection that tells this record of every statement it executes.
	 * @param connection the connection
	 * @return its proxy
	 */
	static Connection capturing(Connection connection) {
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
		return type.cast(Proxy.newProxyInstance(LibraryPath.class.getClassLoader(), new Class<?>[] { type }, handler));
	}

	private static String packageOf(String type) {
		String packageName = type.substring(0, type.lastIndexOf('.'));
		return packageName.equals("io.github.advisorylock") ? "(root)"
				: packageName.substring("io.github.advisorylock.".length());
	}

	private enum State {

		OFF, ARMED, RECORDING, DONE

	}

	@FunctionalInterface
	private interface After {

		Object after(String method, Object[] args, Object result);

	}

	@FunctionalInterface
	private interface Before {

		void before(String method);

	}

	/**
	 * One entry into a library method.
	 *
	 * @param thread the thread it ran on
	 * @param depth how many library methods that thread had entered and not left
	 * @param type the method's class
	 * @param method the method's name and descriptor
	 * @param packages the packages on that thread's library stack, from its bottom to
	 * this method, a package written once for each run of frames in it
	 */
	record Entry(String thread, int depth, String type, String method, List<String> packages) {

		String name() {
			return this.type.substring(this.type.lastIndexOf('.') + 1) + "." + this.method;
		}

		boolean bounces() {
			return new LinkedHashSet<>(this.packages).size() < this.packages.size();
		}

	}

	/**
	 * The methods a call entered, in order.
	 *
	 * @param entries each entry into a library method
	 */
	record Path(List<Entry> entries) {

		long methods() {
			return this.entries.stream().map((entry) -> entry.type() + "#" + entry.method()).distinct().count();
		}

		long classes() {
			return this.entries.stream().map(Entry::type).distinct().count();
		}

		/** The packages entered, in order, a package written once for each run. */
		List<String> packagesCrossed() {
			List<String> crossed = new ArrayList<>();
			for (Entry entry : this.entries) {
				String each = entry.packages().get(entry.packages().size() - 1);
				if (crossed.isEmpty() || !crossed.get(crossed.size() - 1).equals(each)) {
					crossed.add(each);
				}
			}
			return crossed;
		}

		/** The call stacks on which a package is entered again after another one. */
		List<List<String>> bounces() {
			return this.entries.stream().filter(Entry::bounces).map(Entry::packages).distinct().toList();
		}

		String describe() {
			StringBuilder text = new StringBuilder();
			String thread = null;
			for (Entry entry : this.entries) {
				if (!entry.thread().equals(thread)) {
					thread = entry.thread();
					text.append("\n  [").append(thread).append(']');
				}
				text.append("\n  ").append("  ".repeat(entry.depth())).append(entry.name());
			}
			text.append("\n  ")
				.append(methods())
				.append(" methods in ")
				.append(classes())
				.append(" classes; packages in order: ")
				.append(String.join(" > ", packagesCrossed()));
			List<List<String>> bounces = bounces();
			text.append("; bounces: ").append(bounces.isEmpty() ? "none" : bounces);
			return text.toString();
		}

	}

	/**
	 * The instrumentation, until it is reset.
	 *
	 * @param instrumentation the agent's instrumentation
	 * @param transformer what it added to the library's classes
	 */
	record Installed(Instrumentation instrumentation, ResettableClassFileTransformer transformer) {

		/** Restore the library's classes as they were, and stop any record. */
		void uninstall() {
			state = State.OFF;
			this.transformer.reset(this.instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
		}

	}

	/**
	 * Instruments the library's classes before the first test of a class and restores
	 * them after its last: {@code @ExtendWith(LibraryPath.Instrumented.class)}.
	 */
	static final class Instrumented implements BeforeAllCallback, AfterAllCallback {

		private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
			.create(Instrumented.class);

		@Override
		public void beforeAll(ExtensionContext context) {
			context.getStore(NAMESPACE).put(Installed.class, install());
		}

		@Override
		public void afterAll(ExtensionContext context) {
			Installed installed = context.getStore(NAMESPACE).remove(Installed.class, Installed.class);
			if (installed != null) {
				installed.uninstall();
			}
		}

	}

	static final class MethodAdvice {

		private MethodAdvice() {
		}

		@Advice.OnMethodEnter
		static void enter(@Advice.Origin("#t") String type, @Advice.Origin("#m#d") String method) {
			LibraryPath.entered(type, method);
		}

		@Advice.OnMethodExit(onThrowable = Throwable.class)
		static void exit() {
			LibraryPath.exited();
		}

	}

	static final class ConstructorAdvice {

		private ConstructorAdvice() {
		}

		@Advice.OnMethodEnter
		static void enter(@Advice.Origin("#t") String type, @Advice.Origin("#m#d") String method) {
			LibraryPath.entered(type, method);
		}

		// A constructor cannot catch what its super constructor throws: a constructor
		// that
		// throws leaves its entry on the stack, which none on these paths does.
		@Advice.OnMethodExit
		static void exit() {
			LibraryPath.exited();
		}

	}

}
