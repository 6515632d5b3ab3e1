package com.example.setup

import org.springframework.boot.fromApplication

/**
 * Runs the application on an embedded PostgreSQL, so that `spring-boot:test-run` needs no database installed.
 */
fun main(args: Array<String>) {
    EmbeddedDatabase.r2dbcProperties().forEach(System::setProperty)
    fromApplication<ConsumerApplication>().run(*args)
}
