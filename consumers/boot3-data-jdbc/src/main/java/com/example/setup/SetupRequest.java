package com.example.setup;

import java.util.UUID;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/** A Spring Data JDBC aggregate: the application's own entity, which the quick start leaves to it. */
@Table("setup_requests")
public class SetupRequest {

    @Id
    private Long id;

    private final UUID userId;

    private final String status;

    public SetupRequest(UUID userId, String status) {
        this.userId = userId;
        this.status = status;
    }

    public Long getId() {
        return id;
    }

    public UUID getUserId() {
        return userId;
    }

    public String getStatus() {
        return status;
    }
}
