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

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.context.ApplicationContext;
import org.springframework.util.Assert;

/**
 * The web operations of the {@code advisorylocks} endpoint as Actuator discovers them,
 * extension included: what an HTTP request reaches, without a web server.
 */
final class AdvisoryLocksWebOperations {

	private AdvisoryLocksWebOperations() {
	}

	/**
	 * Return the web operation of the endpoint at a path.
	 * @param context the application context
	 * @param path the operation's path, such as {@code advisorylocks/{dataSource}}
	 * @return the operation
	 */
	static WebOperation at(ApplicationContext context, String path) {
		WebOperation operation = all(context).get(path);
		Assert.state(operation != null, () -> "No web operation of advisorylocks at " + path);
		return operation;
	}

	/**
	 * Return the web operations of the endpoint by path.
	 * @param context the application context
	 * @return the operations
	 */
	static Map<String, WebOperation> all(ApplicationContext context) {
		WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(context,
				new ConversionServiceParameterValueMapper(), EndpointMediaTypes.DEFAULT, List.of(), List.of(),
				List.of(), List.of(), List.of());
		ExposableWebEndpoint endpoint = discoverer.getEndpoints()
			.stream()
			.filter((candidate) -> candidate.getEndpointId().toString().equals("advisorylocks"))
			.findFirst()
			.orElseThrow();
		return endpoint.getOperations()
			.stream()
			.collect(Collectors.toMap((operation) -> operation.getRequestPredicate().getPath(),
					(operation) -> operation));
	}

}
