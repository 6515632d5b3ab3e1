package com.example.setup

import java.util.UUID

import org.springframework.data.annotation.Id
import org.springframework.data.relational.core.mapping.Table

/** A Spring Data R2DBC entity: the application's own, which the quick start leaves to it. */
@Table("setup_requests")
data class SetupRequest(@Id val id: Long? = null, val userId: UUID, val status: String)
