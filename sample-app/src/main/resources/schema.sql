CREATE TABLE IF NOT EXISTS setup_requests (
    id         uuid PRIMARY KEY,
    user_id    uuid        NOT NULL,
    status     text        NOT NULL CHECK (status IN ('pending', 'completed', 'cancelled')),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS setup_requests_user_pending ON setup_requests (user_id) WHERE status = 'pending';
