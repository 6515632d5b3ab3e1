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

package io.github.advisorylock.actuate;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLocksDescriptor;
import io.github.advisorylock.pglocks.R2dbcAdvisoryLockInspector;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.util.Assert;

/**
 * {@link Endpoint @Endpoint} {@code advisorylocks} of an application on R2DBC alone: the
 * same answer as {@link AdvisoryLocksEndpoint}'s, read without blocking by an
 * {@link R2dbcAdvisoryLockInspector}. An application with a JDBC {@code DataSource} gets
 * {@link AdvisoryLocksEndpoint} instead.
 *
 * <p>
 * {@code /advisorylocks} shows the database of the default (primary)
 * {@code ConnectionFactory}, {@code /advisorylocks/{connectionFactory}} that of the bean
 * of that name. A read that cannot run in time signals a
 * {@link org.springframework.dao.TransientDataAccessResourceException}, which
 * {@link ReactiveAdvisoryLocksEndpointWebExtension} answers over HTTP with {@code 503}.
 * Labels and query text may hold personal data: expose the endpoint to operators only.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@Endpoint(id = "advisorylocks")
public class ReactiveAdvisoryLocksEndpoint {

	private final Map<String, R2dbcAdvisoryLockInspector> inspectors;

	private final @Nullable String defaultConnectionFactory;

	private final @Nullable KeyLabels labels;

	/**
	 * Create an endpoint.
	 * @param inspectors read the locks of each {@code ConnectionFactory}, by bean name;
	 * at least one
	 * @param defaultConnectionFactory the name of the one {@code /advisorylocks} shows,
	 * or {@code null} for none
	 * @param labels the recently derived keys, or {@code null} to show no labels
	 */
	public ReactiveAdvisoryLocksEndpoint(Map<String, R2dbcAdvisoryLockInspector> inspectors,
			@Nullable String defaultConnectionFactory, @Nullable KeyLabels labels) {
		Assert.notEmpty(inspectors, "At least one R2dbcAdvisoryLockInspector is required");
		Assert.noNullElements(inspectors.values(), "R2dbcAdvisoryLockInspectors must not be null");
		Assert.isTrue(defaultConnectionFactory == null || inspectors.containsKey(defaultConnectionFactory),
				() -> "The default ConnectionFactory '" + defaultConnectionFactory + "' is none of "
						+ inspectors.keySet());
		this.inspectors = Collections.unmodifiableMap(new LinkedHashMap<>(inspectors));
		this.defaultConnectionFactory = defaultConnectionFactory;
		this.labels = labels;
	}

	/**
	 * Return the advisory locks of the database of the default {@code ConnectionFactory}.
	 * @return the locks, grouped by key, holders first; or an
	 * {@link InvalidEndpointRequestException} if there are several
	 * {@code ConnectionFactory} beans and none is the default
	 */
	@ReadOperation
	public Mono<AdvisoryLocksDescriptor> advisoryLocks() {
		String name = this.defaultConnectionFactory;
		if (name == null) {
			String reason = "There are several R2DBC ConnectionFactories and none is primary: ask "
					+ "/advisorylocks/{connectionFactory}, one of " + this.inspectors.keySet();
			return Mono.error(new InvalidEndpointRequestException(reason, reason));
		}
		return describe(this.inspectors.get(name));
	}

	/**
	 * Return the advisory locks of the database of the {@code ConnectionFactory} bean of
	 * the given name.
	 * @param connectionFactory the bean name
	 * @return the locks, grouped by key, holders first; empty (not found) for a name that
	 * is no {@code ConnectionFactory} bean
	 */
	@ReadOperation
	public Mono<AdvisoryLocksDescriptor> advisoryLocksOf(@Selector String connectionFactory) {
		R2dbcAdvisoryLockInspector inspector = this.inspectors.get(connectionFactory);
		return (inspector != null) ? describe(inspector) : Mono.empty();
	}

	private Mono<AdvisoryLocksDescriptor> describe(R2dbcAdvisoryLockInspector inspector) {
		return inspector.locks().map((snapshot) -> LockDescriptions.describe(snapshot, this.labels));
	}

}
