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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.github.advisorylock.actuate.AdvisoryLocksEndpoint.AdvisoryLocksDescriptor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.util.Assert;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} of the
 * {@link AdvisoryLocksEndpoint}: answers a read that could not get a connection in time
 * (the endpoint polled faster than it reads) with {@code 503 Service Unavailable} rather
 * than an error. The body gives the reason and {@code retryAfterSeconds}, as Spring
 * Boot's {@code WebEndpointResponse} carries no {@code Retry-After} header.
 *
 * @author advisory-lock authors
 * @since 0.1.0
 */
@EndpointWebExtension(endpoint = AdvisoryLocksEndpoint.class)
public class AdvisoryLocksEndpointWebExtension {

	private final AdvisoryLocksEndpoint endpoint;

	private final Duration retryAfter;

	/**
	 * Create the extension.
	 * @param endpoint the endpoint it answers for
	 * @param retryAfter how long a client turned away should wait: the bound on one read
	 */
	public AdvisoryLocksEndpointWebExtension(AdvisoryLocksEndpoint endpoint, Duration retryAfter) {
		Assert.notNull(endpoint, "AdvisoryLocksEndpoint must not be null");
		Assert.notNull(retryAfter, "Retry after must not be null");
		this.endpoint = endpoint;
		this.retryAfter = retryAfter;
	}

	/**
	 * Return the advisory locks of the database of the default {@code DataSource}, or
	 * {@code 503} when no connection to read them was free in time.
	 * @return the response
	 * @see AdvisoryLocksEndpoint#advisoryLocks()
	 */
	@ReadOperation
	public WebEndpointResponse<Object> advisoryLocks() {
		return respond(this.endpoint::advisoryLocks);
	}

	/**
	 * Return the advisory locks of the database of the {@code DataSource} bean of the
	 * given name, {@code 404} for a name that is no {@code DataSource} bean, or
	 * {@code 503} when no connection to read them was free in time.
	 * @param dataSource the bean name
	 * @return the response
	 * @see AdvisoryLocksEndpoint#advisoryLocksOf(String)
	 */
	@ReadOperation
	public WebEndpointResponse<Object> advisoryLocksOf(@Selector String dataSource) {
		return respond(() -> this.endpoint.advisoryLocksOf(dataSource));
	}

	private WebEndpointResponse<Object> respond(Supplier<@Nullable AdvisoryLocksDescriptor> read) {
		try {
			AdvisoryLocksDescriptor locks = read.get();
			return (locks != null) ? new WebEndpointResponse<>(locks)
					: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (TransientDataAccessException ex) {
			return unavailable(ex, this.retryAfter);
		}
	}

	/**
	 * Answer a read that could not run in time: expected when polled often, so with no
	 * stack trace and no ERROR.
	 * @param ex why the read could not run
	 * @param retryAfter how long the client should wait
	 * @return {@code 503}, with the reason and {@code retryAfterSeconds}
	 */
	static WebEndpointResponse<Object> unavailable(TransientDataAccessException ex, Duration retryAfter) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("message", ex.getMessage());
		body.put("retryAfterSeconds", Math.max(1, (retryAfter.toMillis() + 999) / 1000));
		return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
	}

}
