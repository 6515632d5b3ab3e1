package com.example.setup

import java.util.UUID

import io.github.advisorylock.AdvisoryLocked

import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional

@Service
class SetupRequestService(private val requests: SetupRequestRepository) {

    /** Under the lock, no other call for this user runs between the count and the save; null when one is pending. */
    @Transactional
    @AdvisoryLocked(namespace = "setup_request", key = ["#userId"])
    suspend fun create(userId: UUID): SetupRequest? {
        if (requests.countByUserIdAndStatus(userId, "pending") > 0) return null
        return requests.save(SetupRequest(userId = userId, status = "pending"))
    }
}
