package com.example.setup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.github.advisorylock.test.AdvisoryLockTester;
import io.github.advisorylock.test.AutoConfigureAdvisoryLockTester;
import io.github.advisorylock.test.ConcurrentCalls;
import io.github.advisorylock.test.OutsideLock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The rule's lock proven with the starter's test kit (advisory-lock-test): concurrent calls for one user are
 * serialized by its lock, and a call waits while another instance holds it. After each test, the kit checks that no
 * lock the application took is left.
 */
@SpringBootTest(properties = "advisory-lock.default-timeout=60s")
@AutoConfigureAdvisoryLockTester
class SetupRequestLockingTests {

    @Autowired
    private AdvisoryLockTester locks;

    @Autowired
    private SetupRequestService service;

    private static final Duration HANG = Duration.ofSeconds(60);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        EmbeddedDatabase.register(registry);
    }

    @Test
    void concurrentCallsForOneUserAreSerializedAndCreateOneRequest() {
        UUID userId = UUID.randomUUID();
        ConcurrentCalls calls = locks.concurrentCalls(4, () -> created(userId));
        assertThat(calls).areSerializedBy("setup_request", userId);
        assertThat(calls.results()).containsOnlyOnce(true);
    }

    @Test
    void aCallWaitsWhileAnotherInstanceHoldsTheUsersLock() {
        UUID userId = UUID.randomUUID();
        Executor caller = (call) -> new Thread(call, "setup-request-call").start();
        CompletableFuture<SetupRequest> call;
        try (OutsideLock held = locks.hold("setup_request", userId)) {
            call = CompletableFuture.supplyAsync(() -> service.create(userId), caller);
            held.awaitWaiters(1);
            assertThat(call).isNotDone();
        }
        assertThat(call).succeedsWithin(HANG).extracting(SetupRequest::getId).isNotNull();
    }

    /** One call of the rule: whether it created the user's request, or found one pending. */
    private boolean created(UUID userId) {
        try {
            service.create(userId);
            return true;
        }
        catch (IllegalStateException alreadyPending) {
            return false;
        }
    }
}
