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

package io.github.advisorylock.kotlin

import io.github.advisorylock.AdvisoryLockKeys
import io.github.advisorylock.AdvisoryLocked
import io.github.advisorylock.LockScope
import io.github.advisorylock.ReactiveAdvisoryLockOperations
import io.github.advisorylock.WaitMode
import io.github.advisorylock.testsupport.LockHolder
import io.github.advisorylock.testsupport.NoAdvisoryLocksLeft
import io.github.advisorylock.testsupport.PgLocks
import io.github.advisorylock.testsupport.R2dbcConnectionFactories
import io.github.advisorylock.testsupport.TestDatabase
import io.r2dbc.spi.ConnectionFactory
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.future.future
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.reactor.awaitSingleOrNull
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.jdbc.core.JdbcTemplate
import org.springframework.jdbc.support.JdbcTransactionManager
import org.springframework.r2dbc.core.DatabaseClient
import org.springframework.stereotype.Service
import org.springframework.test.context.DynamicPropertyRegistry
import org.springframework.test.context.DynamicPropertySource
import org.springframework.transaction.annotation.Transactional
import java.util.UUID
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import javax.sql.DataSource
import kotlin.math.abs

private const val R2DBC_TRANSACTIONS = "connectionFactoryTransactionManager"

private const val NAMESPACE = "kotlin_setup_request"

private const val JOB = "kotlin_job"

/**
 * `@AdvisoryLocked` on Kotlin `suspend` functions and on functions returning a `Flow`, in
 * a Spring Boot application with both stacks against real PostgreSQL: the lock is taken in
 * the caller's reactive transaction before the function's body runs (before the flow is
 * collected), and `SKIP` returns without running it. An invocation-scoped `suspend` job holds its lock while it
 * suspends, and finds it through the coroutine's Reactor context, as does a fenced write inside it.
 */
@SpringBootTest(classes = [CoroutinesAdvisoryLockedTests.Config::class])
@ExtendWith(NoAdvisoryLocksLeft::class)
class CoroutinesAdvisoryLockedTests {

	companion object {

		private val HANG = PgLocks.HANG_TIMEOUT

		@JvmStatic
		@DynamicPropertySource
		fun database(registry: DynamicPropertyRegistry) {
			R2dbcConnectionFactories.springR2dbcProperties().forEach { (name, value) -> registry.add(name) { value } }
			registry.add("advisory-lock.default-timeout") { "20s" }
		}

	}

	@Autowired
	lateinit var requests: SetupRequests

	@Autowired
	lateinit var jobs: NightlyJobs

	@Autowired
	lateinit var exports: FencedExports

	private val pgLocks = PgLocks(TestDatabase.get().dataSource())

	private val user = abs(UUID.randomUUID().mostSignificantBits)

	private val key = AdvisoryLockKeys.of(NAMESPACE, user)

	@BeforeEach
	fun table() {
		JdbcTemplate(TestDatabase.get().dataSource())
			.execute("CREATE TABLE IF NOT EXISTS kotlin_setup_request (user_id bigint NOT NULL)")
	}

	@Test
	fun `coroutines racing on one user keep at most one pending request`() {
		val created = blocking {
			(1..8).map { async(Dispatchers.IO) { requests.request(user) } }.awaitAll()
		}
		assertThat(created).containsOnlyOnce(true).hasSize(8)
		assertThat(blocking { requests.count(user) }).isEqualTo(1)
	}

	@Test
	fun `the suspend function runs only once the lock is held`() {
		LockHolder.exclusive(TestDatabase.get().dataSource(), key).use { holder ->
			val before = requests.calls()
			val waiting = inBackground { requests.request(user) }
			pgLocks.awaitWaiters(key, 1)
			assertThat(requests.calls()).isEqualTo(before)
			holder.commit()
			assertThat(waiting.get(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue()
			assertThat(requests.calls()).isEqualTo(before + 1)
		}
	}

	@Test
	fun `a flow is collected only once the lock is held, in the transaction that holds it`() {
		LockHolder.exclusive(TestDatabase.get().dataSource(), key).use { holder ->
			val before = requests.calls()
			val collecting = inBackground { requests.pending(user).toList() }
			pgLocks.awaitWaiters(key, 1)
			assertThat(requests.calls()).isEqualTo(before)
			holder.commit()
			// The pending count, then the advisory locks the collecting transaction's
			// session holds: the one of the call.
			assertThat(collecting.get(HANG.toSeconds(), TimeUnit.SECONDS)).containsExactly(0L, 1L)
			assertThat(requests.calls()).isEqualTo(before + 1)
		}
	}

	@Test
	fun `a suspend function returning a flow is collected only once the lock is held`() {
		LockHolder.exclusive(TestDatabase.get().dataSource(), key).use { holder ->
			val before = requests.calls()
			val collecting = inBackground { requests.pendingAfterCheck(user).toList() }
			pgLocks.awaitWaiters(key, 1)
			assertThat(requests.calls()).isEqualTo(before)
			holder.commit()
			assertThat(collecting.get(HANG.toSeconds(), TimeUnit.SECONDS)).containsExactly(0L, 1L)
			assertThat(requests.calls()).isEqualTo(before + 1)
		}
	}

	@Test
	fun `skip returns null or Unit without running the function`() {
		LockHolder.exclusive(TestDatabase.get().dataSource(), key).use {
			val before = requests.calls()
			assertThat(blocking { requests.requestIfFree(user) }).isNull()
			blocking { requests.touchIfFree(user) }
			assertThat(blocking { requests.pendingIfFree(user).toList() }).isEmpty()
			assertThat(requests.calls()).isEqualTo(before)
		}
		val free = requests.calls()
		assertThat(blocking { requests.requestIfFree(user) }).isTrue()
		blocking { requests.touchIfFree(user) }
		assertThat(requests.calls()).isEqualTo(free + 2)
	}

	@Test
	fun `an invocation-scoped suspend job holds its lock while it suspends, and a second run skips`() {
		val job = AdvisoryLockKeys.of(JOB, "nightly")
		val started = CompletableDeferred<Unit>()
		val release = CompletableDeferred<Unit>()
		val first = inBackground { jobs.nightly(started, release) }
		try {
			// The body runs once the lock is held: once it has started, the lock is in pg_locks.
			blocking { started.await() }
			assertThat(pgLocks.on(job)).hasSize(1)
			// SKIP: the second run finds the key held by the first one's session and does not run.
			assertThat(blocking { jobs.nightly(CompletableDeferred(), CompletableDeferred(Unit)) }).isNull()
			assertThat(jobs.runs()).isEqualTo(1)
		}
		finally {
			release.complete(Unit)
		}
		// isHeld inside the job, after it suspended, found its lock through the coroutine's Reactor context.
		assertThat(first.get(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue()
		assertThat(pgLocks.on(job)).isEmpty()
	}

	@Test
	fun `a transactional suspend function inside an invocation-scoped one on the same key is a fenced write`() {
		// The writer's transaction took the key's fence, found through the coroutine's Reactor context.
		assertThat(blocking { exports.export() }).isEqualTo(1L)
		assertThat(pgLocks.fences()).isEmpty()
	}

	private fun <T> blocking(block: suspend CoroutineScope.() -> T): T =
		runBlocking { withTimeout(HANG.toMillis(), block) }

	private fun <T> inBackground(block: suspend CoroutineScope.() -> T): CompletableFuture<T> =
		CoroutineScope(Dispatchers.IO).future(block = block)

	/** The setup-request rule: at most one pending request per user. */
	@Service
	class SetupRequests(private val database: DatabaseClient) {

		private val calls = AtomicInteger()

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = NAMESPACE, key = ["#userId"])
		suspend fun request(userId: Long): Boolean {
			calls.incrementAndGet()
			if (count(userId) > 0) {
				return false
			}
			database.sql("INSERT INTO kotlin_setup_request VALUES ($1)").bind(0, userId).then().awaitSingleOrNull()
			return true
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = NAMESPACE, key = ["#userId"])
		fun pending(userId: Long): Flow<Long> {
			calls.incrementAndGet()
			return flow {
				emit(count(userId))
				emit(heldHere())
			}
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = NAMESPACE, key = ["#userId"])
		suspend fun pendingAfterCheck(userId: Long): Flow<Long> {
			calls.incrementAndGet()
			val pending = count(userId)
			val held = heldHere()
			return flow {
				emit(pending)
				emit(held)
			}
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = NAMESPACE, key = ["#userId"], waitMode = WaitMode.SKIP)
		suspend fun requestIfFree(userId: Long): Boolean? = request(userId)

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = NAMESPACE, key = ["#userId"], waitMode = WaitMode.SKIP)
		suspend fun touchIfFree(userId: Long) {
			calls.incrementAndGet()
		}

		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = NAMESPACE, key = ["#userId"], waitMode = WaitMode.SKIP)
		fun pendingIfFree(userId: Long): Flow<Long> {
			calls.incrementAndGet()
			return flow { emit(count(userId)) }
		}

		/** How often a locked function's body ran, read through the proxy. */
		fun calls(): Int = calls.get()

		suspend fun count(userId: Long): Long =
			database.sql("SELECT count(*) FROM kotlin_setup_request WHERE user_id = $1")
				.bind(0, userId)
				.map { row -> row.get(0, java.lang.Long::class.java)!!.toLong() }
				.one()
				.awaitSingle()

		/** The advisory locks the session of the current reactive transaction holds. */
		private suspend fun heldHere(): Long =
			database.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()")
				.map { row -> row.get(0, java.lang.Long::class.java)!!.toLong() }
				.one()
				.awaitSingle()

	}

	/** A nightly job that may run on one instance at a time, and suspends while it works. */
	@Service
	class NightlyJobs(private val locks: ReactiveAdvisoryLockOperations) {

		private val runs = AtomicInteger()

		@AdvisoryLocked(namespace = JOB, key = ["'nightly'"], scope = LockScope.INVOCATION, waitMode = WaitMode.SKIP)
		suspend fun nightly(started: CompletableDeferred<Unit>, release: CompletableDeferred<Unit>): Boolean? {
			runs.incrementAndGet()
			started.complete(Unit)
			release.await()
			locks.checkHeld().awaitSingleOrNull()
			return locks.isHeld(JOB, "nightly").awaitSingle()
		}

		/** How often the job's body ran. */
		fun runs(): Int = runs.get()

	}

	/** A job whose writes are fenced by its invocation-scoped lock. */
	@Service
	class FencedExports(private val writer: FencedWriter) {

		@AdvisoryLocked(namespace = JOB, key = ["'export'"], scope = LockScope.INVOCATION)
		suspend fun export(): Long = writer.write()

	}

	/** One batch of the export, in a transaction of its own. */
	@Service
	class FencedWriter(private val database: DatabaseClient) {

		/** The fences the session of this reactive transaction holds. */
		@Transactional(R2DBC_TRANSACTIONS)
		@AdvisoryLocked(namespace = JOB, key = ["'export'"])
		suspend fun write(): Long =
			database.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted " +
					"AND pid = pg_backend_pid()")
				.map { row -> row.get(0, java.lang.Long::class.java)!!.toLong() }
				.one()
				.awaitSingle()

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	class Config {

		/** Spring Boot defines no DataSource where there is an R2DBC ConnectionFactory. */
		@Bean
		fun dataSource(): DataSource = TestDatabase.get().dataSource()

		@Bean
		fun transactionManager(dataSource: DataSource) = JdbcTransactionManager(dataSource)

		@Bean
		fun setupRequests(connectionFactory: ConnectionFactory) = SetupRequests(DatabaseClient.create(connectionFactory))

		@Bean
		fun nightlyJobs(locks: ReactiveAdvisoryLockOperations) = NightlyJobs(locks)

		@Bean
		fun fencedWriter(connectionFactory: ConnectionFactory) = FencedWriter(DatabaseClient.create(connectionFactory))

		@Bean
		fun fencedExports(writer: FencedWriter) = FencedExports(writer)

	}

}
