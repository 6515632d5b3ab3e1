package com.example.setup

import java.time.Duration
import java.util.UUID
import java.util.concurrent.TimeUnit

import io.github.advisorylock.AdvisoryLockKeys
import io.github.advisorylock.ReactiveAdvisoryLockOperations
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import reactor.core.publisher.Flux
import reactor.core.publisher.Mono
import reactor.core.publisher.Sinks
import reactor.core.scheduler.Schedulers

import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient
import org.springframework.http.HttpStatus
import org.springframework.http.HttpStatusCode
import org.springframework.r2dbc.core.DatabaseClient
import org.springframework.test.context.DynamicPropertyRegistry
import org.springframework.test.context.DynamicPropertySource
import org.springframework.test.web.reactive.server.WebTestClient
import org.springframework.transaction.ReactiveTransactionManager
import org.springframework.transaction.reactive.TransactionalOperator

/**
 * The rule over HTTP, against a real PostgreSQL (embedded, started once for the test JVM): concurrent requests for
 * one user create one setup request, and every other one is answered 409.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class SetupRequestHttpTests {

    @Autowired
    private lateinit var client: WebTestClient

    @Autowired
    private lateinit var db: DatabaseClient

    @Autowired
    private lateinit var locks: ReactiveAdvisoryLockOperations

    @Autowired
    private lateinit var transactions: ReactiveTransactionManager

    @Test
    fun `concurrent requests for one user create exactly one setup request`() {
        val userId = UUID.randomUUID()

        val statuses = Flux.range(0, REQUESTS)
            .flatMap({ post(userId) }, REQUESTS)
            .collectList()
            .block(HANG)!!

        assertThat(statuses).hasSize(REQUESTS).containsOnly(HttpStatus.CREATED, HttpStatus.CONFLICT)
        assertThat(statuses.count { it == HttpStatus.CREATED }).describedAs("requests answered 201").isEqualTo(1)
        assertThat(count("SELECT count(*) FROM setup_requests WHERE user_id = $1", userId)).isEqualTo(1)
        assertThat(count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")).describedAs("advisory locks left").isZero()
    }

    @Test
    fun `a second request for the same user is answered 409`() {
        val userId = UUID.randomUUID()

        client.post().uri("/users/{userId}/setup-requests", userId).exchange()
            .expectStatus().isCreated
            .expectBody().jsonPath("$.userId").isEqualTo(userId.toString())
        client.post().uri("/users/{userId}/setup-requests", userId).exchange()
            .expectStatus().isEqualTo(HttpStatus.CONFLICT)
    }

    @Test
    fun `the advisorylocks endpoint shows who holds a user's lock`() {
        val userId = UUID.randomUUID()
        val held = Sinks.one<Boolean>()
        val release = Sinks.empty<Void>()
        val holder = TransactionalOperator.create(transactions)
            .transactional(locks.lock("setup_request", userId).then(Mono.fromRunnable<Void> { held.tryEmitValue(true) }).then(release.asMono()))
            .toFuture()
        try {
            val label = "setup_request:$userId"
            held.asMono().block(HANG)
            client.get().uri("/actuator/advisorylocks").exchange()
                .expectStatus().isOk
                .expectBody()
                .jsonPath("$.locks[?(@.label == '$label')].granted").isEqualTo(true)
                .jsonPath("$.locks[?(@.label == '$label')].key").isEqualTo(AdvisoryLockKeys.of("setup_request", userId))
        }
        finally {
            release.tryEmitEmpty()
            holder.get(HANG.toSeconds(), TimeUnit.SECONDS)
        }
    }

    /** One request on a thread of its own: WebTestClient waits for each response, and the requests are to overlap. */
    private fun post(userId: UUID): Mono<HttpStatusCode> = Mono.fromCallable {
        client.mutate().responseTimeout(HANG).build()
            .post().uri("/users/{userId}/setup-requests", userId)
            .exchange()
            .expectBody().returnResult()
            .status
    }.subscribeOn(Schedulers.boundedElastic())

    private fun count(sql: String, vararg values: Any): Long {
        var spec = db.sql(sql)
        values.forEachIndexed { index, value -> spec = spec.bind(index, value) }
        return spec.map { row -> row.get(0, java.lang.Long::class.java)!!.toLong() }.one().block(HANG)!!
    }

    companion object {

        private const val REQUESTS = 10

        private val HANG = Duration.ofSeconds(60)

        @JvmStatic
        @DynamicPropertySource
        fun database(registry: DynamicPropertyRegistry) {
            EmbeddedDatabase.r2dbcProperties().forEach { (name, value) -> registry.add(name) { value } }
            // The concurrent requests queue for one user's lock: on a loaded machine the last may wait longer than the
            // application's 2 s, and a timeout is a 500, not the rule's 409.
            registry.add("advisory-lock.default-timeout") { "60s" }
        }
    }
}
