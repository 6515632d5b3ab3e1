package com.example.setup

import java.net.URI
import java.util.UUID

import org.springframework.http.HttpStatus
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RestController

/** The rule over HTTP: 201 with the new request, or 409 while the user has one pending. */
@RestController
class SetupRequestController(private val service: SetupRequestService) {

    @PostMapping("/users/{userId}/setup-requests")
    suspend fun create(@PathVariable userId: UUID): ResponseEntity<SetupRequest> {
        val created = service.create(userId) ?: return ResponseEntity.status(HttpStatus.CONFLICT).build()
        return ResponseEntity.created(URI.create("/users/$userId/setup-requests/${created.id}")).body(created)
    }
}
