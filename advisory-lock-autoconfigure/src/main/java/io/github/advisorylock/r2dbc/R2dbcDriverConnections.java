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
 * The last statements and the close of a connection the library took from the driver, run
 * off the thread that asks for them: often the one delivering the driver's last signal of
 * that connection, from which r2dbc-postgresql 1.1 can spin for ever (docs/decisions.md,
 * "Closing the driver's own connections").
 *
 * @author advisory-lock authors
 */
final class R2dbcDriverConnections {

	private R2dbcDriverConnections() {
	}

	/** Close the connection on Reactor's bounded elastic scheduler. */
	static Mono<Void> close(Connection connection) {
		return offTheDelivery(Mono.defer(() -> Mono.from(connection.close())));
	}

	/** Subscribe to a connection's last statements on the bounded elastic scheduler. */
	static <T> Mono<T> offTheDelivery(Mono<T> statements) {
		return statements.subscribeOn(Schedulers.boundedElastic());
	}

}
