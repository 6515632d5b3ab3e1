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

package io.github.advisorylock.contract;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * What BlockHound allows in the reactive tests beyond what Reactor, Netty and Spring
 * declare themselves: one call of the R2DBC driver at login, none of this library.
 * Registered for {@link java.util.ServiceLoader} in {@code META-INF/services}, which only
 * BlockHound reads (in the surefire execution {@code reactive}).
 */
public class DriverBlockHoundIntegration implements BlockHoundIntegration {

	@Override
	public void applyTo(BlockHound.Builder builder) {
		// r2dbc-postgresql's SCRAM login (through PgBouncer here) draws its nonce from
		// SecureRandom on the event loop, which refills from /dev/urandom now and then:
		// pgjdbc/r2dbc-postgresql#623. /dev/urandom does not block once the kernel is
		// seeded. The nonce's method in SCRAM 2 (the Spring Boot 3.5 line) and 3 (Boot
		// 4).
		builder.allowBlockingCallsInside("com.ongres.scram.common.util.CryptoUtil", "nonce");
		builder.allowBlockingCallsInside("com.ongres.scram.common.ScramFunctions", "nonce");
	}

}
