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
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.AdvisoryLocked;
import io.github.advisorylock.LockScope;
import io.github.advisorylock.ReactiveAdvisoryLockOperations;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Advisor;
import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.interceptor.AsyncExecutionInterceptor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.core.Ordered;
import org.springframework.core.SmartClassLoader;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies beans with {@link io.github.advisorylock.AdvisoryLocked @AdvisoryLocked}
 * methods, validating every such method when the bean is created.
 *
 * <p>
 * Two advisors share one interceptor, one per {@link LockScope}. The transaction-scope
 * advisor goes after any existing ones (and a later proxy wraps this one), so the lock is
 * taken inside the transaction whatever the registration order. The invocation-scope
 * advisor goes ahead of every existing one but {@code @Async}'s, so the lock is held
 * outside the method's transaction. Both sit inside {@code @Async}'s: an {@code @Async}
 * method locks on the executor's thread around the whole work, which is why it may return
 * a {@code Future}. Ordered just before {@link Ordered#LOWEST_PRECEDENCE} (where
 * {@code ScheduledAnnotationBeanPostProcessor} runs), so that a {@code @Scheduled} method
 * is scheduled on the proxy.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
public class AdvisoryLockBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

	private final Supplier<AdvisoryLockOperations> operations;

	private final Supplier<ReactiveAdvisoryLockOperations> reactiveOperations;

	private @Nullable AdvisoryLockAttributeSource attributeSource;

	private @Nullable Advisor invocationAdvisor;

	/**
	 * Create the post processor.
	 * @param operations supplies the lock operations at the first call
	 */
	public AdvisoryLockBeanPostProcessor(Supplier<AdvisoryLockOperations> operations) {
		this(operations, () -> {
			throw new IllegalStateException("No ReactiveAdvisoryLockOperations was given to this "
					+ "AdvisoryLockBeanPostProcessor, so methods returning Mono or Flux cannot be locked");
		});
	}

	/**
	 * Create the post processor for an application with both stacks: a method returning a
	 * {@code Mono} or {@code Flux} takes its lock through the reactive operations, every
	 * other one through the blocking ones.
	 * @param operations supplies the lock operations at the first call
	 * @param reactiveOperations supplies the reactive lock operations at the first call
	 * of a reactive method
	 */
	public AdvisoryLockBeanPostProcessor(Supplier<AdvisoryLockOperations> operations,
			Supplier<ReactiveAdvisoryLockOperations> reactiveOperations) {
		this.operations = operations;
		this.reactiveOperations = reactiveOperations;
		setBeforeExistingAdvisors(false);
		setOrder(Ordered.LOWEST_PRECEDENCE - 1);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		super.setBeanFactory(beanFactory);
		initAdvisors(beanFactory);
	}

	/**
	 * Build the interceptor and its two advisors once for every bean, as
	 * {@code AsyncAnnotationBeanPostProcessor} does; the bean factory, if any, lets key
	 * expressions name beans and timeouts hold placeholders.
	 */
	private void initAdvisors(@Nullable BeanFactory beanFactory) {
		EmbeddedValueResolver valueResolver = (beanFactory instanceof ConfigurableBeanFactory configurable)
				? new EmbeddedValueResolver(configurable) : null;
		LockKeyExpressionEvaluator evaluator = new LockKeyExpressionEvaluator(beanFactory);
		AdvisoryLockAttributeSource source = new AdvisoryLockAttributeSource(evaluator,
				new AdvisoryLockAttributeValidator(evaluator, valueResolver, beanFactory));
		AdvisoryLockInterceptor interceptor = new AdvisoryLockInterceptor(this.operations, this.reactiveOperations,
				source, evaluator);
		this.attributeSource = source;
		this.advisor = new DefaultPointcutAdvisor(new AdvisoryLockPointcut(source, LockScope.TRANSACTION), interceptor);
		this.invocationAdvisor = new DefaultPointcutAdvisor(new AdvisoryLockPointcut(source, LockScope.INVOCATION),
				interceptor);
	}

	/**
	 * Return a method of a class that this post processor would intercept for
	 * {@link AdvisoryLocked @AdvisoryLocked}, without parsing or validating it, so that
	 * the auto-configuration's startup check and the interception agree on what is
	 * annotated.
	 * @param type the class of a bean
	 * @return an annotated method, or {@code null} if there is none
	 */
	public static @Nullable Method findAnnotatedMethod(Class<?> type) {
		return findAnnotatedMethod(type, (method) -> true);
	}

	/**
	 * Return a method of a class, as {@link #findAnnotatedMethod(Class)} does, that takes
	 * its lock through JDBC rather than the reactive path (no {@code Mono}, {@code Flux},
	 * bridged {@code Flow} or {@code suspend} function).
	 * @param type the class of a bean
	 * @return such an annotated method, or {@code null} if there is none
	 */
	public static @Nullable Method findBlockingAnnotatedMethod(Class<?> type) {
		return findAnnotatedMethod(type, (method) -> ReturnedWork.reactiveReturn(method) == null);
	}

	private static @Nullable Method findAnnotatedMethod(Class<?> type, Predicate<Method> filter) {
		if (!AnnotationUtils.isCandidateClass(type, AdvisoryLocked.class)) {
			return null;
		}
		Method[] found = new Method[1];
		ReflectionUtils.doWithMethods(type, (method) -> {
			if (found[0] == null && filter.test(method)) {
				found[0] = method;
			}
		}, AdvisoryLockAttributeValidator::isAnnotated);
		return found[0];
	}

	/**
	 * Return the class of the proxy that {@link #postProcessAfterInitialization} will
	 * make of a bean of the given class, so that Spring's AOT processing generates it at
	 * build time, as a native image needs. The inherited method knows only the
	 * transaction-scope advisor, and misses beans whose locks are all invocation-scoped.
	 * @param beanClass the class of the bean, or of the proxy an earlier post processor
	 * predicted for it
	 * @param beanName the name of the bean
	 * @return the class of the proxy, or {@code beanClass} when this post processor adds
	 * no proxy of its own
	 */
	@Override
	public Class<?> determineBeanType(Class<?> beanClass, String beanName) {
		if (SpringProxy.class.isAssignableFrom(beanClass)) {
			// Our advisors join the earlier proxy at runtime; the inherited method would
			// generate a second, unused proxy class.
			return beanClass;
		}
		Class<?> type = super.determineBeanType(beanClass, beanName);
		Advisor invocation = this.invocationAdvisor;
		if (type != beanClass || invocation == null || !AopUtils.canApply(invocation, beanClass)) {
			return type;
		}
		// The proxy that addInvocationAdvisor makes of a bean not proxied yet.
		ProxyFactory proxyFactory = new ProxyFactory();
		proxyFactory.copyFrom(this);
		proxyFactory.setTargetClass(beanClass);
		applyInvocationAdvisor(proxyFactory, beanClass, invocation);
		ClassLoader classLoader = getProxyClassLoader();
		if (classLoader instanceof SmartClassLoader smartClassLoader && classLoader != beanClass.getClassLoader()) {
			classLoader = smartClassLoader.getOriginalClassLoader();
		}
		return proxyFactory.getProxyClass(classLoader);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.attributeSource == null) {
			// Outside a bean factory: no bean references or placeholders.
			initAdvisors(null);
		}
		AdvisoryLockAttributeSource source = this.attributeSource;
		Advisor invocation = this.invocationAdvisor;
		Assert.state(source != null && invocation != null, "Advisors not initialized");
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		source.validate(targetClass);
		Object proxy = super.postProcessAfterInitialization(bean, beanName);
		if (!(bean instanceof AopInfrastructureBean) && AopUtils.canApply(invocation, targetClass)) {
			proxy = addInvocationAdvisor(proxy, beanName, invocation);
		}
		if (AopUtils.isJdkDynamicProxy(proxy) && proxy instanceof Advised advised) {
			source.getValidator().validateProxiedInterfaces(targetClass, advised.getProxiedInterfaces());
		}
		return proxy;
	}

	private Object addInvocationAdvisor(Object bean, String beanName, Advisor invocationAdvisor) {
		if (bean instanceof Advised advised && !advised.isFrozen()) {
			advised.addAdvisor(outsideAllButAsync(advised), invocationAdvisor);
			return bean;
		}
		ProxyFactory proxyFactory = prepareProxyFactory(bean, beanName);
		applyInvocationAdvisor(proxyFactory, bean.getClass(), invocationAdvisor);
		return proxyFactory.getProxy(getProxyClassLoader());
	}

	/**
	 * Complete the factory of a proxy that only the invocation-scope advisor makes, in
	 * one place so that {@link #determineBeanType} predicts the class made at runtime.
	 */
	private void applyInvocationAdvisor(ProxyFactory proxyFactory, Class<?> beanClass, Advisor invocationAdvisor) {
		if (!proxyFactory.isProxyTargetClass()) {
			evaluateProxyInterfaces(beanClass, proxyFactory);
		}
		proxyFactory.addAdvisor(invocationAdvisor);
		customizeProxyFactory(proxyFactory);
	}

	/**
	 * Return the position just inside the last {@code @Async} advisor, or the front when
	 * there is none.
	 */
	private static int outsideAllButAsync(Advised advised) {
		Advisor[] advisors = advised.getAdvisors();
		int position = 0;
		for (int i = 0; i < advisors.length; i++) {
			if (advisors[i].getAdvice() instanceof AsyncExecutionInterceptor) {
				position = i + 1;
			}
		}
		return position;
	}

}
