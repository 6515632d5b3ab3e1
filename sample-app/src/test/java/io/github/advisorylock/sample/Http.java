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
package io.github.advisorylock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;

import com.jayway.jsonpath.JsonPath;

/**
 * A small HTTP client for the sample's API on a local port. The JDK's client and
 * JsonPath, rather than a Spring Boot test client, keep the tests the same on every
 * Spring Boot line.
 */
public final class Http {

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private final String base;

	/**
	 * Create a client of the application on a local port.
	 * @param port the port
	 */
	public Http(int port) {
		this.base = "http://127.0.0.1:" + port;
	}

	/**
	 * Send a POST.
	 * @param path the path
	 * @param json the JSON body, or {@code null} for none
	 * @return the response
	 */
	public HttpResponse<String> post(String path, String json) {
		HttpRequest.BodyPublisher body = (json != null) ? BodyPublishers.ofString(json) : BodyPublishers.noBody();
		return send(request(path).header("Content-Type", "application/json").POST(body).build());
	}

	/**
	 * Send a GET.
	 * @param path the path
	 * @return the response
	 */
	public HttpResponse<String> get(String path) {
		return send(request(path).GET().build());
	}

	/**
	 * Read a value from a JSON body.
	 * @param <T> the type of the value
	 * @param response the response
	 * @param path a JsonPath expression, such as {@code $.id}
	 * @return the value
	 */
	public static <T> T json(HttpResponse<String> response, String path) {
		return JsonPath.read(response.body(), path);
	}

	private HttpRequest.Builder request(String path) {
		return HttpRequest.newBuilder(URI.create(this.base + path))
			.timeout(Duration.ofSeconds(Concurrently.HANG_SECONDS));
	}

	private HttpResponse<String> send(HttpRequest request) {
		try {
			return this.client.send(request, BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during " + request, ex);
		}
	}

}
