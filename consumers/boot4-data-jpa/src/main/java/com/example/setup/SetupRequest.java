package com.example.setup;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A JPA entity: the application's own, which the quick start leaves to it. */
@Entity
@Table(name = "setup_requests")
public class SetupRequest {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    private UUID userId;

    private String status;

    protected SetupRequest() {
    }

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
