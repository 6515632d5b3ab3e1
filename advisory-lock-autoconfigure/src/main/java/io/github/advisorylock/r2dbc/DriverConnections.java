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
 * The close of a connection the library took from the driver itself, which runs off the
 * thread that asks for it. That thread is often the one delivering the driver's last
 * signal, and r2dbc-postgresql 1.1 spins for ever in a close called from inside its own
 * delivery while more of the server's messages wait behind the one delivered: which
 * happens when a session's rollback fails because PgBouncer or the server ended the
 * connection, and then that thread, often a driver's event loop, never comes back.
 * Elsewhere the close waits at most until the delivery returns.
 *
 * @author advisory-lock authors
 */
final class DriverConnections {

	private DriverConnections() {
	}

	/**
	 * Close the connection on Reactor's bounded elastic scheduler.
	 * @param connection the driver's connection
	 * @return completes when the driver has closed it
	 */
	static Mono<Void> close(Connection connection) {
		return Mono.defer(() -> Mono.from(connection.close())).subscribeOn(Schedulers.boundedElastic());
	}

}
