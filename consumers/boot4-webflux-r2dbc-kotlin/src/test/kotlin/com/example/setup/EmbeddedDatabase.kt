package com.example.setup

import java.io.IOException

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres

/** An embedded PostgreSQL, started once for the JVM, and the `spring.r2dbc.*` properties that point to it. */
object EmbeddedDatabase {

    private val postgres: EmbeddedPostgres by lazy {
        try {
            EmbeddedPostgres.start()
        }
        catch (ex: IOException) {
            throw IllegalStateException("Embedded PostgreSQL did not start (PostgreSQL refuses to run as root)", ex)
        }
    }

    fun r2dbcProperties(): Map<String, String> = mapOf(
        "spring.r2dbc.url" to "r2dbc:postgresql://localhost:${postgres.port}/postgres",
        "spring.r2dbc.username" to "postgres",
        "spring.r2dbc.password" to "postgres",
    )
}
