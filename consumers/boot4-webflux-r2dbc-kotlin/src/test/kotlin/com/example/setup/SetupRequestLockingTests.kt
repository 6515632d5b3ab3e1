package com.example.setup

import java.time.Duration
import java.util.UUID
import java.util.concurrent.TimeUnit

import io.github.advisorylock.test.AdvisoryLockTester
import io.github.advisorylock.test.AutoConfigureAdvisoryLockTester
import kotlinx.coroutines.reactor.mono
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import reactor.core.scheduler.Schedulers

import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.test.context.DynamicPropertyRegistry
import org.springframework.test.context.DynamicPropertySource

/**
 * The rule's lock tested with the starter's test kit (advisory-lock-test) on R2DBC: the kit holds the user's lock as
 * another instance would, through the application's ConnectionFactory, and the `suspend` call waits for it. After
 * each test, the kit checks that no lock the application took is left.
 */
@SpringBootTest
@AutoConfigureAdvisoryLockTester
class SetupRequestLockingTests {

    @Autowired
    private lateinit var locks: AdvisoryLockTester

    @Autowired
    private lateinit var service: SetupRequestService

    @Test
    fun `a call waits while another instance holds the user's lock`() {
        val userId = UUID.randomUUID()
        val held = locks.hold("setup_request", userId)
        val call = held.use {
            val call = mono { service.create(userId) }.subscribeOn(Schedulers.boundedElastic()).toFuture()
            held.awaitWaiters(1)
            assertThat(call).isNotDone()
            call
        }
        assertThat(call.get(HANG.seconds, TimeUnit.SECONDS)?.userId).isEqualTo(userId)
    }

    companion object {

        private val HANG = Duration.ofSeconds(60)

        @JvmStatic
        @DynamicPropertySource
        fun database(registry: DynamicPropertyRegistry) {
            EmbeddedDatabase.r2dbcProperties().forEach { (name, value) -> registry.add(name) { value } }
            registry.add("advisory-lock.default-timeout") { "60s" }
        }
    }
}
