package com.example.setup;

import java.io.IOException;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.test.context.DynamicPropertyRegistry;

/** An embedded PostgreSQL, started once for the test JVM, which every test class of the application uses. */
final class EmbeddedDatabase {

    private static final EmbeddedPostgres postgres = start();

    private EmbeddedDatabase() {
    }

    /** Points {@code spring.datasource.*} at the embedded server, from a test's {@code @DynamicPropertySource}. */
    static void register(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> postgres.getJdbcUrl("postgres", "postgres"));
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("spring.datasource.password", () -> "postgres");
    }

    private static EmbeddedPostgres start() {
        try {
            return EmbeddedPostgres.start();
        }
        catch (IOException ex) {
            throw new IllegalStateException("Embedded PostgreSQL did not start (PostgreSQL refuses to run as root)", ex);
        }
    }
}
