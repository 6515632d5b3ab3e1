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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import io.github.advisorylock.AdvisoryLocked;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

/**
 * Sees the bodies of the application's {@link AdvisoryLocked @AdvisoryLocked} methods
 * run, for {@link ConcurrentCallsAssert}: an interceptor around each, inside the lock's
 * own, that tells the {@link Run} in progress which of its calls entered and left a body.
 * A blocking call is known by its thread; a {@code Mono} or {@code Flux} by its
 * subscriber's context, its body running from its subscription to its end.
 *
 * @author advisory-lock authors
 */
final class LockedBodies implements MethodInterceptor {

	/**
	 * Whether Reactor is on the class path, so that {@link ReactiveCalls} may be loaded.
	 */
	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LockedBodies.class.getClassLoader());

	private static final ThreadLocal<Integer> CALL = new ThreadLocal<>();

	private final AtomicReference<@Nullable Run> run = new AtomicReference<>();

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Run run = this.run.get();
		if (run == null) {
			return invocation.proceed();
		}
		if (REACTOR_PRESENT && ReactiveCalls.isReactive(invocation.getMethod().getReturnType())) {
			return ReactiveCalls.watch(invocation.proceed(), run, invocation.getMethod());
		}
		Integer call = CALL.get();
		if (call == null) {
			return invocation.proceed();
		}
		run.enter(call, invocation.getMethod());
		try {
			return invocation.proceed();
		}
		finally {
			run.exit(call);
		}
	}

	/**
	 * Start watching the bodies for a run of calls.
	 * @param permits how many calls may be in a body at once
	 * @return the run
	 * @throws IllegalStateException if another run is in progress
	 */
	Run start(int permits) {
		Run started = new Run(permits);
		if (!this.run.compareAndSet(null, started)) {
			throw new IllegalStateException("Another run of concurrent calls is in progress in this application "
					+ "context: run one at a time");
		}
		return started;
	}

	void stop(Run run) {
		this.run.compareAndSet(run, null);
	}

	/**
	 * Run work as one of a run's calls, on the current thread.
	 * @param call the call's index
	 * @param work the work
	 * @return what it returned
	 * @throws Exception what it threw
	 */
	static <T> T asCall(int call, Callable<T> work) throws Exception {
		CALL.set(call);
		try {
			return work.call();
		}
		finally {
			CALL.remove();
		}
	}

	/**
	 * One run of concurrent calls: which are in a body, and what went wrong.
	 */
	static final class Run {

		private final int permits;

		private final Map<Integer, Integer> depths = new HashMap<>();

		private final List<String> entriesWhileHeld = new ArrayList<>();

		private final List<String> overlaps = new ArrayList<>();

		private int bodiesEntered;

		private boolean released;

		Run(int permits) {
			this.permits = permits;
		}

		synchronized void enter(int call, Method method) {
			this.bodiesEntered++;
			String body = ClassUtils.getQualifiedMethodName(method);
			if (!this.released) {
				this.entriesWhileHeld.add("call " + call + " entered " + body);
			}
			this.depths.merge(call, 1, Integer::sum);
			if (this.depths.size() > this.permits) {
				this.overlaps.add("calls " + this.depths.keySet() + " were in " + body + " at once, where "
						+ this.permits + " may be");
			}
		}

		synchronized void exit(int call) {
			this.depths.computeIfPresent(call, (key, depth) -> (depth > 1) ? depth - 1 : null);
		}

		synchronized void released() {
			this.released = true;
		}

		/**
		 * Return the entries into a body while the lock was held from outside.
		 * @return what entered where
		 */
		synchronized List<String> entriesWhileHeld() {
			return List.copyOf(this.entriesWhileHeld);
		}

		/**
		 * Return each time more calls were in bodies at once than the permits allow.
		 * @return which calls were in which body
		 */
		synchronized List<String> overlaps() {
			return List.copyOf(this.overlaps);
		}

		synchronized int bodiesEntered() {
			return this.bodiesEntered;
		}

	}

	/**
	 * Adds the interceptor to each bean with an {@link AdvisoryLocked @AdvisoryLocked}
	 * method, after the lock's own post processor ({@code LOWEST_PRECEDENCE - 1}) and
	 * behind its advisors, so that a body is seen only once its lock is held.
	 */
	static final class PostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

		PostProcessor(LockedBodies bodies) {
			this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, AdvisoryLocked.class, true),
					bodies);
			setBeforeExistingAdvisors(false);
			setOrder(Ordered.LOWEST_PRECEDENCE);
		}

		/**
		 * Only a bean already proxied, by the lock's post processor: one the locks leave
		 * alone (the annotation switched off) is left as the application has it.
		 */
		@Override
		protected boolean isEligible(Object bean, String beanName) {
			return bean instanceof Advised && super.isEligible(bean, beanName);
		}

	}

}
