package com.example.setup;

import java.util.UUID;

import org.springframework.data.repository.CrudRepository;

public interface SetupRequestRepository extends CrudRepository<SetupRequest, Long> {

    long countByUserIdAndStatus(UUID userId, String status);
}
