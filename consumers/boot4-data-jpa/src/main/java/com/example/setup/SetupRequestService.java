package com.example.setup;

import java.util.UUID;

import io.github.advisorylock.AdvisoryLocked;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class SetupRequestService {

    private final SetupRequestRepository requests;

    public SetupRequestService(SetupRequestRepository requests) {
        this.requests = requests;
    }

    @Transactional
    @AdvisoryLocked(namespace = "setup_request", key = "#userId")
    public SetupRequest create(UUID userId) {
        // Under the lock, no other call for this user runs between this count and the save.
        if (requests.countByUserIdAndStatus(userId, "pending") > 0) {
            throw new IllegalStateException("User " + userId + " already has a pending setup request");
        }
        return requests.save(new SetupRequest(userId, "pending"));
    }
}
