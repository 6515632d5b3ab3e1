package com.example.setup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.github.advisorylock.AdvisoryLockOperations;
import io.github.advisorylock.LockTransactionException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The README's quick start at work in this application, against a real PostgreSQL (embedded, started once for the
 * test JVM): two calls for one user never both pass the check, and a lock asked for outside a transaction is refused.
 */
@SpringBootTest(properties = "advisory-lock.default-timeout=60s")
class SetupRequestServiceTests {

    private static final Duration HANG = Duration.ofSeconds(60);

    /** A thread of its own for each call: the common pool may have a single thread, which the first call occupies. */
    private static final Executor CALLER = (call) -> new Thread(call, "setup-request-call").start();

    @Autowired
    private SetupRequestService service;

    @Autowired
    private SetupRequestRepository requests;

    @Autowired
    private AdvisoryLockOperations locks;

    @Autowired
    private TransactionTemplate transactions;

    @Autowired
    private JdbcClient jdbc;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        EmbeddedDatabase.register(registry);
    }

    @Test
    void aSecondCallForTheSameUserWaitsForTheFirstAndThenSeesItsRow() throws Exception {
        UUID userId = UUID.randomUUID();
        CountDownLatch created = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        // The first call runs inside a transaction of the test's, which holds the lock until the test lets it commit.
        CompletableFuture<SetupRequest> first = CompletableFuture.supplyAsync(() -> transactions.execute((status) -> {
            SetupRequest request = service.create(userId);
            created.countDown();
            await(commit);
            return request;
        }), CALLER);
        assertThat(created.await(HANG.toSeconds(), TimeUnit.SECONDS)).as("first call created its request").isTrue();

        CompletableFuture<SetupRequest> second = CompletableFuture.supplyAsync(() -> service.create(userId), CALLER);
        awaitAdvisoryLockWaiter(second);
        commit.countDown();

        assertThat(first.get(HANG.toSeconds(), TimeUnit.SECONDS).getId()).isNotNull();
        assertThatThrownBy(() -> second.get(HANG.toSeconds(), TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("already has a pending setup request");
        assertThat(requests.countByUserIdAndStatus(userId, "pending")).isEqualTo(1);
    }

    @Test
    void aLockOutsideATransactionIsRefused() {
        assertThatThrownBy(() -> locks.lock("setup_request", UUID.randomUUID()))
            .isInstanceOf(LockTransactionException.class);
    }

    /**
     * Waits until PostgreSQL shows a session waiting for an advisory lock: the fact, not a guess of how long. The
     * caller must still be waiting then; one that returned or threw did not wait.
     */
    private void awaitAdvisoryLockWaiter(CompletableFuture<?> caller) throws InterruptedException {
        Instant deadline = Instant.now().plus(HANG);
        while (jdbc.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            .query(Integer.class)
            .single() == 0) {
            if (caller.isDone()) {
                throw new AssertionError("The second call did not wait for the lock: " + outcome(caller));
            }
            assertThat(Instant.now()).as("a call waiting for the advisory lock").isBefore(deadline);
            Thread.sleep(10);
        }
    }

    private static String outcome(CompletableFuture<?> done) {
        try {
            return "it returned " + done.join();
        }
        catch (RuntimeException ex) {
            return "it threw " + ex.getCause();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(HANG.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never let the first call commit");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
