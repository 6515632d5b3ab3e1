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

import java.time.Duration;

import reactor.core.publisher.Mono;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.util.Assert;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} of the
 * {@link ReactiveAdvisoryLocksEndpoint}, answering as
 * {@link AdvisoryLocksEndpointWebExtension} does.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@EndpointWebExtension(endpoint = ReactiveAdvisoryLocksEndpoint.class)
public class ReactiveAdvisoryLocksEndpointWebExtension {

	private final ReactiveAdvisoryLocksEndpoint endpoint;

	private final Duration retryAfter;

	/**
	 * Create the extension.
	 * @param endpoint the endpoint it answers for
	 * @param retryAfter how long a client turned away should wait: the bound on one read
	 */
	public ReactiveAdvisoryLocksEndpointWebExtension(ReactiveAdvisoryLocksEndpoint endpoint, Duration retryAfter) {
		Assert.notNull(endpoint, "ReactiveAdvisoryLocksEndpoint must not be null");
		Assert.notNull(retryAfter, "Retry after must not be null");
		this.endpoint = endpoint;
		this.retryAfter = retryAfter;
	}

	/**
	 * Return the advisory locks of the database of the default {@code ConnectionFactory},
	 * or {@code 503} when they could not be read in time.
	 * @return the response
	 * @see ReactiveAdvisoryLocksEndpoint#advisoryLocks()
	 */
	@ReadOperation
	public Mono<WebEndpointResponse<Object>> advisoryLocks() {
		return respond(this.endpoint.advisoryLocks());
	}

	/**
	 * Return the advisory locks of the database of the {@code ConnectionFactory} bean of
	 * the given name, {@code 404} for a name that is no {@code ConnectionFactory} bean,
	 * or {@code 503} when they could not be read in time.
	 * @param connectionFactory the bean name
	 * @return the response
	 * @see ReactiveAdvisoryLocksEndpoint#advisoryLocksOf(String)
	 */
	@ReadOperation
	public Mono<WebEndpointResponse<Object>> advisoryLocksOf(@Selector String connectionFactory) {
		return respond(this.endpoint.advisoryLocksOf(connectionFactory));
	}

	private Mono<WebEndpointResponse<Object>> respond(Mono<? extends Object> read) {
		return read.map((locks) -> new WebEndpointResponse<Object>(locks))
			.defaultIfEmpty(new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND))
			.onErrorResume(TransientDataAccessException.class,
					(ex) -> Mono.just(AdvisoryLocksEndpointWebExtension.unavailable(ex, this.retryAfter)));
	}

}
