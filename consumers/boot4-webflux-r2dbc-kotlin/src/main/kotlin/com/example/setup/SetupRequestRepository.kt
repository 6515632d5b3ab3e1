package com.example.setup

import java.util.UUID

import org.springframework.data.repository.kotlin.CoroutineCrudRepository

interface SetupRequestRepository : CoroutineCrudRepository<SetupRequest, Long> {

    suspend fun countByUserIdAndStatus(userId: UUID, status: String): Long
}
