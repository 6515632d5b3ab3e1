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

package io.github.advisorylock.r2dbc;

import io.r2dbc.spi.Connection;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The last statements and the close of a connection the library took from the driver
 * itself, which run off the thread that asks for them. That thread is often the one
 * delivering the driver's last signal of the same connection, and r2dbc-postgresql 1.1
 * spins for ever when the connection closes from inside that delivery while more of the
 * server's messages wait behind the one delivered: on a close, and on a statement sent on
 * a connection whose link is gone, which the driver answers by closing it. That happens
 * when a session's rollback fails because PgBouncer or the server ended the connection;
 * the thread, often a driver's event loop, then never comes back. Elsewhere the close
 * waits at most until the delivery returns.
 *
 * @author advisory-lock authors
 */
final class R2dbcDriverConnections {

	private R2dbcDriverConnections() {
	}

	/**
	 * Close the connection on Reactor's bounded elastic scheduler.
	 * @param connection the driver's connection
	 * @return completes when the driver has closed it
	 */
	static Mono<Void> close(Connection connection) {
		return offTheDelivery(Mono.defer(() -> Mono.from(connection.close())));
	}

	/**
	 * Subscribe to statements of a connection's end on Reactor's bounded elastic
	 * scheduler.
	 * @param <T> the element type
	 * @param statements the statements, subscribed there
	 * @return their outcome
	 */
	static <T> Mono<T> offTheDelivery(Mono<T> statements) {
		return statements.subscribeOn(Schedulers.boundedElastic());
	}

}
