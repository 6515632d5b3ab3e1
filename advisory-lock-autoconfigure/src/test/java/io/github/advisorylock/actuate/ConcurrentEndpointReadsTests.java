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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import io.github.advisorylock.autoconfigure.AdvisoryLockAutoConfiguration;
import io.github.advisorylock.autoconfigure.AdvisoryLockEndpointAutoConfiguration;
import io.github.advisorylock.pglocks.StallingEndpointReads;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft;
import io.github.advisorylock.testsupport.PgLocks;
import io.github.advisorylock.testsupport.TestDatabase;
import io.github.advisorylock.testsupport.TestThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@code advisorylocks} web endpoint polled by many clients at once, while
 * its reads of {@code pg_locks} are slow: each client gets the locks or a {@code 503}
 * that says when to try again, never an error.
 */
@ExtendWith({ NoAdvisoryLocksLeft.class, OutputCaptureExtension.class })
class ConcurrentEndpointReadsTests {

	private static final int READS = 12;

	private static final long HANG_SECONDS = PgLocks.HANG_TIMEOUT.toSeconds();

	@RegisterExtension
	final TestThreads threads = new TestThreads();

	private final DataSource dataSource = TestDatabase.get().dataSource();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
				BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class,
				AdvisoryLockEndpointAutoConfiguration.class))
		.withBean(DataSource.class, () -> this.dataSource)
		.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks");

	@Test
	void concurrentReadsAnswerTheLocksOr503SayingWhenToRetryAndLogNoError(CapturedOutput output) {
		// Settled: a read either stalls while connecting, holding what the endpoint's
		// reads may hold, or has answered.
		CountDownLatch settled = new CountDownLatch(READS);
		StallingEndpointReads stalling = new StallingEndpointReads(this.dataSource, settled);
		this.contextRunner
			.withBean(AdvisoryLocksEndpoint.class, () -> new AdvisoryLocksEndpoint(stalling.inspector(), null))
			.run((context) -> {
				WebOperation root = AdvisoryLocksWebOperations.at(context, "advisorylocks");
				List<Future<Object>> reads = new ArrayList<>();
				try {
					IntStream.range(0, READS).forEach((i) -> reads.add(this.threads.submit(() -> {
						try {
							return root.invoke(new InvocationContext(SecurityContext.NONE, Map.of()));
						}
						finally {
							settled.countDown();
						}
					})));
					TestThreads.await(settled);
				}
				finally {
					stalling.release();
				}
				List<Integer> statuses = new ArrayList<>();
				for (Future<Object> read : reads) {
					Object response;
					try {
						response = read.get(HANG_SECONDS, TimeUnit.SECONDS);
					}
					catch (ExecutionException ex) {
						// What Actuator answers over HTTP when an operation throws, with
						// its stack trace as an ERROR.
						statuses.add(WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR);
						continue;
					}
					// A plain body is answered with 200.
					WebEndpointResponse<?> web = (response instanceof WebEndpointResponse<?> given) ? given
							: new WebEndpointResponse<>(response);
					statuses.add(web.getStatus());
					if (web.getStatus() == WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE) {
						assertThat(web.getBody()).isInstanceOfSatisfying(Map.class, (body) -> {
							assertThat(body).containsEntry("retryAfterSeconds", 1L);
							assertThat((String) body.get("message")).contains("try again");
						});
					}
					else {
						assertThat(web.getBody()).isInstanceOf(AdvisoryLocksEndpoint.AdvisoryLocksDescriptor.class);
					}
				}
				assertThat(statuses).containsOnly(WebEndpointResponse.STATUS_OK,
						WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
				// The reads overlapped: some were turned away while one held the
				// endpoint's connection.
				assertThat(statuses).contains(WebEndpointResponse.STATUS_OK,
						WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
			});
		assertThat(output.getAll()).doesNotContain("ERROR");
	}

	@Test
	void aNameThatIsNoDataSourceIsNotFound() {
		this.contextRunner.run((context) -> {
			Object response = AdvisoryLocksWebOperations.at(context, "advisorylocks/{dataSource}")
				.invoke(new InvocationContext(SecurityContext.NONE, Map.of("dataSource", "nope")));
			assertThat(response).isInstanceOfSatisfying(WebEndpointResponse.class,
					(web) -> assertThat(web.getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND));
		});
	}

}
