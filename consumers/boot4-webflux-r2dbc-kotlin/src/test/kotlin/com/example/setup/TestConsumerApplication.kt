package com.example.setup

import org.springframework.boot.fromApplication
import org.springframework.boot.logging.LoggingSystem

/**
 * Runs the application on an embedded PostgreSQL, so that `spring-boot:test-run` needs no database installed.
 */
fun main(args: Array<String>) {
    // Hold back the embedded server's start-up log until Spring Boot configures logging, as Spring Boot does.
    LoggingSystem.get(ConsumerApplication::class.java.classLoader).beforeInitialize()
    EmbeddedDatabase.r2dbcProperties().forEach(System::setProperty)
    fromApplication<ConsumerApplication>().run(*args)
}
