package com.example.setup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.advisorylock.AdvisoryLockKeys;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The ShedLock job at work on the starter's {@code LockProvider}, against a real PostgreSQL: while a run holds its
 * lock, the lock is an advisory lock in {@code pg_locks}, and a second run at the same time skips; afterwards nothing
 * is held.
 */
@SpringBootTest
class DailyReportJobTests {

    private static final Duration HANG = Duration.ofSeconds(60);

    private static final long KEY = AdvisoryLockKeys.of("shedlock", "daily-report");

    private static final EmbeddedPostgres postgres = start();

    @Autowired
    private DailyReportJob job;

    @Autowired
    private BlockingWriter writer;

    @Autowired
    private JdbcClient jdbc;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> postgres.getJdbcUrl("postgres", "postgres"));
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("spring.datasource.password", () -> "postgres");
    }

    @Test
    void aSecondRunWhileTheFirstHoldsTheLockSkips() throws Exception {
        CompletableFuture<Void> first = CompletableFuture.runAsync(job::run,
                (task) -> new Thread(task, "first-run").start());
        try {
            assertThat(writer.started.await(HANG.toSeconds(), TimeUnit.SECONDS)).as("first run started").isTrue();
            assertThat(heldAdvisoryLocks()).as("the run's lock, in pg_locks").isOne();

            job.run();
            assertThat(writer.runs.get()).as("the second run skipped").isOne();
        }
        finally {
            writer.release.countDown();
        }
        first.get(HANG.toSeconds(), TimeUnit.SECONDS);
        assertThat(heldAdvisoryLocks()).as("released when the run ended").isZero();
    }

    private int heldAdvisoryLocks() {
        return jdbc.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 "
                + "AND ((classid::bigint << 32) | objid::bigint) = ?").param(KEY).query(Integer.class).single();
    }

    private static EmbeddedPostgres start() {
        try {
            return EmbeddedPostgres.start();
        }
        catch (IOException ex) {
            throw new IllegalStateException("Embedded PostgreSQL did not start (PostgreSQL refuses to run as root)", ex);
        }
    }

    /**
     * The job's work, held until the test lets it end.
     */
    static class BlockingWriter extends ReportWriter {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        final AtomicInteger runs = new AtomicInteger();

        BlockingWriter(JdbcClient jdbc) {
            super(jdbc);
        }

        @Override
        public void write() {
            runs.incrementAndGet();
            started.countDown();
            try {
                release.await(HANG.toSeconds(), TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            super.write();
        }
    }

    @TestConfiguration
    static class Writer {

        @Bean
        @Primary
        BlockingWriter blockingWriter(JdbcClient jdbc) {
            return new BlockingWriter(jdbc);
        }
    }
}
